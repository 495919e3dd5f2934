"""Before ANF: a `match` statement of values as the if/elif chain it stands for.

    match kind:                         if kind == 'l2' or kind == 'sq':
        case 'l2' | 'sq':                   loss = np.sum(x ** 2)
            loss = np.sum(x ** 2)  ->   elif kind is None and x.ndim > 1:
        case None if x.ndim > 1:            loss = np.sum(np.abs(x))
            loss = np.sum(np.abs(x))    else:
        case other:                         other = kind
            loss = np.sum(x)                loss = np.sum(x)

Patterns of values (a constant or a dotted name, compared with ==), of None, True and False
(compared with `is`), their alternatives (|) and guards; a name or `_` only as the last case,
without a guard (it takes what the others left). Other patterns (sequences, mappings,
classes, a name bound by an earlier case) leave the statement as written, refused at its
line by the Normalizer."""

import gast

from . import ir


def as_if_chain(stmt, fresh):
    """The statements standing for match statement `stmt`, or None where a pattern is not
    of those above."""
    subject, first = stmt.subject, []
    if not isinstance(subject, gast.Name):  # (evaluated once, as match does)
        held = fresh("_subject")
        first.append(gast.copy_location(ir.assign(held, subject), stmt))
        subject = ir.name(held)
    chain = []
    for k, case in enumerate(stmt.cases):
        last = k == len(stmt.cases) - 1
        pattern = case.pattern
        if isinstance(pattern, gast.MatchAs) and pattern.pattern is None:
            if not last or case.guard is not None:
                return None  # (a capture or `_` before the end: left to the Normalizer)
            bound = [] if pattern.name is None else [ir.assign(pattern.name, ir.copy_tree(subject))]
            chain.append((None, bound + case.body))
            continue
        test = _test(pattern, subject)
        if test is None:
            return None
        if case.guard is not None:
            test = gast.BoolOp(op=gast.And(), values=[test, case.guard])
        chain.append((test, case.body))
    orelse = []
    for test, body in reversed(chain):
        if test is None:
            orelse = body
        else:
            orelse = [gast.copy_location(gast.If(test=test, body=body, orelse=orelse), stmt)]
    return first + orelse


def _test(pattern, subject):
    """The expression telling whether `subject` matches `pattern`, or None."""
    if isinstance(pattern, gast.MatchValue):
        compared, value = gast.Eq(), pattern.value
    elif isinstance(pattern, gast.MatchSingleton):
        compared, value = gast.Is(), ir.const(pattern.value)
    elif isinstance(pattern, gast.MatchOr):
        tests = [_test(p, subject) for p in pattern.patterns]
        if any(t is None for t in tests):
            return None
        return gast.BoolOp(op=gast.Or(), values=tests)
    else:
        return None
    return gast.Compare(left=ir.copy_tree(subject), ops=[compared], comparators=[value])
