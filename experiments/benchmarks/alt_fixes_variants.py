"""Hand-written alternative fixes of the control and boltons tasks, for ``experiments.benchmarks.alt_fixes``.

``ALTS[task_id][variant]`` is a list of ``(old, new)`` replacements applied in order to the task's pristine file;
each ``old`` must occur exactly once in the text it is applied to. They were written in session 23 (helper-97) the
way a model writes a fix: another expression, the fix plus a refactor, a more defensive version, another return type,
a cache or an attribute, annotations or a renamed parameter. Not one was tuned to pass Beacon's checks.

Every variant is a right fix except those in ``WRONG`` (behaviour a right fix must not have, though the tests do not
assert it) and ``FAILS_TESTS``. ``KNOWN`` lists the right fixes Beacon refuses by design (README, "The price"), and
``KNOWN_MISSES`` the wrong fixes it passes by design (they differ only on inputs no test gives): the benchmark
reports them as ``known`` and ``known miss`` and fails when any other right fix is refused or wrong fix passes.
"""


# the body of windowed_iter's no-fill branch
_NOFILL_BODY = """        try:
            for i, t in enumerate(tees):
                for _ in range(i):
                    next(t)
        except StopIteration:
            return zip([])
        return zip(*tees)
"""
# windowed_iter's no-fill branch handed to a generator of the variant's own (two variants write one)
_NOFILL_SPLIT = ("    tees = itertools.tee(src, size)\n    if fill is _UNSET:\n" + _NOFILL_BODY, """    if fill is _UNSET:
        return _windowed_nofill(src, size)
    tees = itertools.tee(src, size)
""")

# boltons' pristine Bits.__eq__, which several variants rewrite whole
_BITS_EQ = """    def __eq__(self, other):
        if type(self) is not type(other):
            return NotImplemented
        return self.val == other.val and self.len == other.len
"""

# textkit's clamp after its bounds check
_CLAMP_TAIL = """    if value < low:
        return low
    if value > high:
        return high
    return value
"""

# textkit's moving_average loop
_AVERAGE_LOOP = """    out = []
    for start in range(len(values) - window + 1):
        chunk = values[start:start + window]
        out.append(sum(chunk) / window)
    return out
"""

# textkit's truncate after its signature
_TRUNCATE_BODY = """    if len(text) <= limit:
        return text
    return text[:limit - len(suffix)] + suffix
"""

# the end of windowed_iter's no-fill branch
_NOFILL_TAIL = """        except StopIteration:
            return zip([])
        return zip(*tees)
"""

# human_readable_list's last line
_HUMAN_LIST_RETURN = """    return f'{delimiter.join(items[:-1])}{delimiter if oxford else " "}{conjunction} {items[-1]}'
"""

ALTS = {
# ---------------- control: textkit clamp (pristine: if value < low: return low)
"textkit:textkit/numbers.py:9:return_value_swap": {
 "minmax": [(_CLAMP_TAIL, """    return max(low, min(value, high))
""")],
 "reassign_elif": [(_CLAMP_TAIL, """    if value < low:
        value = low
    elif value > high:
        value = high
    return value
""")],
 "sorted_middle": [(_CLAMP_TAIL, """    return sorted((low, value, high))[1]
""")],
 "defensive_typeerror_swap": [("""    if low > high:
        raise ValueError("low must not exceed high")
""", """    if not all(isinstance(v, (int, float)) for v in (value, low, high)):
        raise TypeError("clamp expects numbers")
    if low > high:
        low, high = high, low
""")],
},
# ---------------- control: moving_average (pristine: range(len(values) - window + 1))
"textkit:textkit/numbers.py:20:off_by_one": {
 "comprehension": [(_AVERAGE_LOOP, """    return [sum(values[i:i + window]) / window
            for i in range(len(values) - window + 1)]
""")],
 "running_sum": [(_AVERAGE_LOOP, """    if window > len(values):
        return []
    total = sum(values[:window])
    out = [total / window]
    for i in range(window, len(values)):
        total += values[i] - values[i - window]
        out.append(total / window)
    return out
""")],
 "statistics_mean": [('"""Number helpers."""\n', '"""Number helpers."""\nimport statistics\n'),
  ("""        out.append(sum(chunk) / window)
""", """        out.append(statistics.mean(chunk))
""")],
 "tuple_slices_early_exit": [("""    out = []
    for start in range(len(values) - window + 1):
""", """    values = tuple(values)
    if window > len(values):
        raise ValueError("window larger than the data")
    out = []
    for start in range(len(values) - window + 1):
""")],
},
# ---------------- control: truncate (pristine: if len(text) <= limit)
"textkit:textkit/strings.py:13:comparison_swap": {
 "inverted_branch": [(_TRUNCATE_BODY, """    if len(text) > limit:
        return text[:limit - len(suffix)] + suffix
    return text
""")],
 "not_gt_conditional_expr": [(_TRUNCATE_BODY, """    return text if not len(text) > limit else text[:limit - len(suffix)] + suffix
""")],
 "defensive_valueerror": [(_TRUNCATE_BODY, """    if limit < 0:
        raise ValueError("limit must be non-negative")
    if len(text) <= limit:
        return text
    if limit <= len(suffix):
        return suffix[:limit]
    return text[:max(limit - len(suffix), 0)] + suffix
""")],
 "helper_and_copy": [("""def truncate(text, limit, suffix="..."):""", """def _fits(text, limit):
    return len(text) <= limit


def truncate(text, limit, suffix="..."):"""),
  ("""    if len(text) <= limit:
        return text
""", """    if _fits(text, limit):
        return str(text)
""")],
},
# ---------------- boltons mathutils.clamp (pristine: return min(max(x, lower), upper))
"boltons:mathutils.clamp:variable_swap": {
 "max_min_order": [("    return min(max(x, lower), upper)\n", "    return max(lower, min(x, upper))\n")],
 "explicit_ifs": [("    return min(max(x, lower), upper)\n", """    if x < lower:
        return lower
    if x > upper:
        return upper
    return x
""")],
 "conditional_expr": [("    return min(max(x, lower), upper)\n",
  "    return lower if x < lower else (upper if x > upper else x)\n")],
 "nan_guard_minmax": [("    return min(max(x, lower), upper)\n", """    if x != x:  # NaN passes through unchanged
        return x
    return max(lower, min(x, upper))
""")],
},
# ---------------- boltons iterutils.windowed_iter (pristine: for _ in range(i):)
"boltons:iterutils.windowed_iter:off_by_one": {
 "consume_islice": [(_NOFILL_BODY, """        for i, t in enumerate(tees):
            next(itertools.islice(t, i, i), None)
        return zip(*tees)
""")],
 "empty_iter": [("            return zip([])\n", "            return iter(())\n")],
 "return_list": [(_NOFILL_TAIL, """        except StopIteration:
            return []
        return list(zip(*tees))
""")],
 "deque_generator": [_NOFILL_SPLIT, ("""def windowed_iter(src, size, fill=_UNSET):""", """def _windowed_nofill(src, size):
    from collections import deque
    it = iter(src)
    window = deque(itertools.islice(it, size), maxlen=size)
    if len(window) < size:
        return
    yield tuple(window)
    for item in it:
        window.append(item)
        yield tuple(window)


def windowed_iter(src, size, fill=_UNSET):""")],
},
# ---------------- boltons strutils.human_readable_list (pristine: delimiter if oxford else " ")
"boltons:strutils.human_readable_list:condition_inversion": {
 "sep_variable": [(_HUMAN_LIST_RETURN, """    last_sep = delimiter if oxford else ' '
    return f'{delimiter.join(items[:-1])}{last_sep}{conjunction} {items[-1]}'
""")],
 "if_else_branches": [(_HUMAN_LIST_RETURN, """    head = delimiter.join(items[:-1])
    if oxford:
        return f'{head}{delimiter}{conjunction} {items[-1]}'
    return f'{head} {conjunction} {items[-1]}'
""")],
 "defensive_list_copy": [("""    if not items:
        return ''

    delimiter = delimiter and""", """    if isinstance(items, str):
        raise TypeError('items must be a sequence of strings, not a str')
    items = list(items)
    if not items:
        return ''

    delimiter = delimiter and"""),
  (_HUMAN_LIST_RETURN, """    return ''.join([delimiter.join(items[:-1]), delimiter if oxford else ' ', conjunction, ' ', items[-1]])
""")],
},
}

# ======================= the rewritten-method boltons tasks (experiments/data/boltons_rw_tasks.jsonl)
ALTS.update({
"boltons:mathutils.Bits.__or__:rw": {
 "type_self_len": [("        return Bits(self.val | other.val, max(self.len, other.len))\n",
   "        return type(self)(self.val | other.val, max(len(self), len(other)))\n")],
 "via_bin_string": [("        return Bits(self.val | other.val, max(self.len, other.len))\n",
   """        width = max(self.len, other.len)
        return Bits(format(self.val | other.val, f'0{width}b') if width else '', width)
""")],
 "defensive_typeerror": [("""    def __or__(self, other):
        if type(self) is not type(other):
            return NotImplemented
""", """    def __or__(self, other):
        if not isinstance(other, Bits):
            raise TypeError(f'unsupported operand for |: Bits and {type(other).__name__}')
""")],
},
"boltons:mathutils.Bits.__rshift__:rw": {
 "clamped_len": [("        return Bits(self.val >> other, self.len - other)\n",
   "        return Bits(self.val >> other, max(self.len - other, 0))\n")],
 "slice_based": [("        return Bits(self.val >> other, self.len - other)\n",
   "        return self[:self.len - other] if other else Bits(self.val, self.len)\n")],
 "defensive_valueerror": [("        return Bits(self.val >> other, self.len - other)\n",
   """        if other < 0:
            raise ValueError('negative shift count')
        new_len = self.len - other
        return Bits(self.val >> other, new_len)
""")],
 "returns_self_for_zero": [("        return Bits(self.val >> other, self.len - other)\n",
   """        if other == 0:
            return self  # Bits is immutable
        return Bits(self.val >> other, self.len - other)
""")],
},
"boltons:mathutils.Bits.__eq__:rw": {
 "tuple_compare": [("        return self.val == other.val and self.len == other.len\n",
   "        return (self.val, self.len) == (other.val, other.len)\n")],
 "as_bin_compare": [("        return self.val == other.val and self.len == other.len\n",
   "        return self.len == other.len and self.as_bin() == other.as_bin()\n")],
 "isinstance_false": [(_BITS_EQ, """    def __eq__(self, other):
        if not isinstance(other, Bits):
            return False
        return self.val == other.val and self.len == other.len
""")],
 "eq_plus_hash": [("        return self.val == other.val and self.len == other.len\n",
   "        return self.val == other.val and self.len == other.len\n"),
  ("""    def __hash__(self):
        return hash(self.val)
""", """    def __hash__(self):
        return hash((self.val, self.len))
""")],
},
"boltons:setutils.IndexedSet.difference:rw": {
 "always_iter_difference": [("""        if len(others) == 1:
            other = others[0]
            return self.from_iterable(k for k in self if k not in other)
        return self.from_iterable(self.iter_difference(*others))
""", """        return self.from_iterable(self.iter_difference(*others))
""")],
 "set_lookup": [("""            other = others[0]
            return self.from_iterable(k for k in self if k not in other)
""", """            other = others[0]
            try:
                lookup = other if isinstance(other, (set, frozenset, IndexedSet)) else set(other)
            except TypeError:
                lookup = list(other)
            return self.from_iterable(k for k in self if k not in lookup)
""")],
 "indexedset_filter": [("""            return self.from_iterable(k for k in self if k not in other)
""", """            return IndexedSet([k for k in self if k not in other])
""")],
},
"boltons:dictutils.OrderedMultiDict.__ne__:rw": {
 "dunder_call": [("        return not (self == other)\n", "        return not self.__eq__(other)\n")],
 "notimplemented_aware": [("        return not (self == other)\n", """        eq = self.__eq__(other)
        if eq is NotImplemented:
            return eq
        return not eq
""")],
 "bool_wrap": [("        return not (self == other)\n", "        return (self == other) is False\n")],
},
"boltons:dictutils.OrderedMultiDict.copy:rw": {
 "items_list": [("        return self.__class__(self.iteritems(multi=True))\n",
   "        return self.__class__(self.items(multi=True))\n")],
 "add_loop": [("        return self.__class__(self.iteritems(multi=True))\n", """        new = self.__class__()
        for k, v in self.iteritems(multi=True):
            new.add(k, v)
        return new
""")],
 "type_self": [("        return self.__class__(self.iteritems(multi=True))\n",
   "        return type(self)(list(self.iteritems(multi=True)))\n")],
},
})

# ======================= round 2: variants aimed at behaviour the tests do not assert on
ALTS["boltons:iterutils.windowed_iter:off_by_one"].update({
 "return_list_both": [(_NOFILL_TAIL, """        except StopIteration:
            return []
        return list(zip(*tees))
"""), ("    return zip_longest(*tees, fillvalue=fill)\n", "    return list(zip_longest(*tees, fillvalue=fill))\n")],
})
ALTS["boltons:mathutils.Bits.__eq__:rw"].update({
 "isinstance_notimpl": [(_BITS_EQ, """    def __eq__(self, other):
        if not isinstance(other, Bits):
            return NotImplemented
        return self.val == other.val and self.len == other.len
""")],
 "duck_notimpl": [(_BITS_EQ, """    def __eq__(self, other):
        try:
            return self.val == other.val and self.len == other.len
        except AttributeError:
            return NotImplemented
""")],
 "duck_false": [(_BITS_EQ, """    def __eq__(self, other):
        try:
            return self.val == other.val and self.len == other.len
        except AttributeError:
            return False
""")],
 "raise_typeerror": [("""    def __eq__(self, other):
        if type(self) is not type(other):
            return NotImplemented
""", """    def __eq__(self, other):
        if not isinstance(other, Bits):
            raise TypeError(f'cannot compare Bits with {type(other).__name__}')
""")],
})
ALTS["boltons:mathutils.Bits.__or__:rw"].update({
 "shared_helper": [("""    def __or__(self, other):
        if type(self) is not type(other):
            return NotImplemented
        return Bits(self.val | other.val, max(self.len, other.len))

    def __and__(self, other):
        if type(self) is not type(other):
            return NotImplemented
        return Bits(self.val & other.val, max(self.len, other.len))
""", """    def _combine(self, other, val):
        return Bits(val, max(self.len, other.len))

    def __or__(self, other):
        if type(self) is not type(other):
            return NotImplemented
        return self._combine(other, self.val | other.val)

    def __and__(self, other):
        if type(self) is not type(other):
            return NotImplemented
        return self._combine(other, self.val & other.val)
""")],
})

# ======================= round 3: caches / attributes / other constructor paths
ALTS["textkit:textkit/strings.py:13:comparison_swap"]["memo_cache"] = [
 ("""def truncate(text, limit, suffix="..."):""", """_TRUNCATED = {}


def truncate(text, limit, suffix="..."):"""),
 (_TRUNCATE_BODY, """    key = (text, limit, suffix)
    if key not in _TRUNCATED:
        _TRUNCATED[key] = text if len(text) <= limit else text[:limit - len(suffix)] + suffix
    return _TRUNCATED[key]
""")]
ALTS["boltons:mathutils.clamp:variable_swap"]["counter_attr"] = [
 ("    return min(max(x, lower), upper)\n", """    clamp.calls = getattr(clamp, 'calls', 0) + 1
    return min(max(x, lower), upper)
""")]
ALTS["boltons:dictutils.OrderedMultiDict.copy:rw"]["ctor_from_self"] = [
 ("        return self.__class__(self.iteritems(multi=True))\n", "        return self.__class__(self)\n")]
ALTS["boltons:dictutils.OrderedMultiDict.copy:rw"]["attr_on_copy"] = [
 ("        return self.__class__(self.iteritems(multi=True))\n", """        new = self.__class__(self.iteritems(multi=True))
        new._copied_from_len = len(self)
        return new
""")]
ALTS["boltons:setutils.IndexedSet.difference:rw"]["from_list"] = [
 ("            return self.from_iterable(k for k in self if k not in other)\n",
  "            return self.from_iterable([k for k in self if k not in other])\n")]

# ======================= round 4: dunders and refactors around the fixed def
ALTS["boltons:mathutils.Bits.__eq__:rw"]["eq_plus_ne"] = [
 ("""        return self.val == other.val and self.len == other.len

""", """        return self.val == other.val and self.len == other.len

    def __ne__(self, other):
        result = self.__eq__(other)
        if result is NotImplemented:
            return result
        return not result

""")]
ALTS["boltons:mathutils.Bits.__eq__:rw"]["typed_signature"] = [
 ("""    def __eq__(self, other):
        if type(self) is not type(other):""", """    def __eq__(self, other: object) -> bool:
        if type(self) is not type(other):"""),
 ("        return self.val == other.val and self.len == other.len\n",
  "        return self.len == other.len and self.val == other.val\n")]
ALTS["boltons:setutils.IndexedSet.difference:rw"]["explicit_sub_def"] = [
 ("    __sub__ = difference\n", """
    def __sub__(self, other):
        return self.difference(other)
"""),
 ("            return self.from_iterable(k for k in self if k not in other)\n",
  "            return self.from_iterable([k for k in self if k not in other])\n")]
ALTS["boltons:dictutils.OrderedMultiDict.__ne__:rw"]["ne_plus_eq_notimpl"] = [
 ("""        try:
            if len(other) != len(self):
                return False
        except TypeError:
            return False
        if isinstance(other, OrderedMultiDict):""", """        try:
            if len(other) != len(self):
                return False
        except TypeError:
            return NotImplemented
        if isinstance(other, OrderedMultiDict):"""),
 ("        return not (self == other)\n", """        eq = self.__eq__(other)
        return eq if eq is NotImplemented else not eq
""")]
ALTS["boltons:mathutils.Bits.__eq__:rw"]["typed_signature_only"] = [
 ("""    def __eq__(self, other):
        if type(self) is not type(other):""", """    def __eq__(self, other: 'Bits') -> bool:
        if type(self) is not type(other):""")]
ALTS["boltons:mathutils.Bits.__eq__:rw"]["renamed_param"] = [
 (_BITS_EQ, """    def __eq__(self, rhs):
        if type(self) is not type(rhs):
            return NotImplemented
        return self.val == rhs.val and self.len == rhs.len
""")]
ALTS["boltons:dictutils.OrderedMultiDict.__ne__:rw"]["typed_ne"] = [
 ("""    def __ne__(self, other):
        return not (self == other)
""", """    def __ne__(self, other: object) -> bool:
        return not self == other
""")]

# ======================= round 7: annotations on plain functions, an import-free generator rewrite
ALTS["textkit:textkit/numbers.py:9:return_value_swap"]["typed_signature"] = [
 ("def clamp(value, low, high):", "def clamp(value: float, low: float, high: float) -> float:")]
ALTS["textkit:textkit/strings.py:13:comparison_swap"]["typed_renamed"] = [
 ('def truncate(text, limit, suffix="..."):', 'def truncate(text: str, max_len: int, suffix: str = "...") -> str:'),
 (_TRUNCATE_BODY, """    if len(text) <= max_len:
        return text
    return text[:max_len - len(suffix)] + suffix
""")]
ALTS["boltons:mathutils.clamp:variable_swap"]["typed_signature"] = [
 ("def clamp(x, lower=float('-inf'), upper=float('inf')):", "def clamp(x: float, lower: float = float('-inf'), upper: float = float('inf')) -> float:")]
ALTS["boltons:iterutils.windowed_iter:off_by_one"]["tuple_window_generator"] = [
 _NOFILL_SPLIT, ("""def windowed_iter(src, size, fill=_UNSET):""", """def _windowed_nofill(src, size):
    it = iter(src)
    window = tuple(itertools.islice(it, size))
    if len(window) < size:
        return
    yield window
    for item in it:
        window = window[1:] + (item,)
        yield window


def windowed_iter(src, size, fill=_UNSET):""")]


# Wrong fixes: the tests pass, but the behaviour differs from the pristine code where it matters.
WRONG = {
    ("boltons:iterutils.windowed_iter:off_by_one", "return_list"):
        "eager: a list instead of a lazy zip hangs on the infinite iterators the docstring supports",
    ("boltons:iterutils.windowed_iter:off_by_one", "return_list_both"):
        "eager in both branches (list of zip and of zip_longest)",
    ("boltons:mathutils.Bits.__eq__:rw", "raise_typeerror"):
        "== with a foreign type raises TypeError instead of returning NotImplemented (so False)",
}

# Wrong fixes Beacon passes by design: they differ from the pristine code only on inputs no test gives, and both
# oracles judge behaviour on the tests' own inputs (README, "What the comparisons' oracle cannot see").
KNOWN_MISSES = {
    ("boltons:mathutils.Bits.__eq__:rw", "raise_typeerror"):
        "no test compares a Bits with another type; the probe's stranger only asks whether == says yes",
}

# Fails the task's tests: clamp(nan) returns -inf with max() outside.
FAILS_TESTS = {("boltons:mathutils.clamp:variable_swap", "max_min_order")}

# Right fixes Beacon refuses by design, each with the rule that refuses it (README: "The price").
KNOWN = {
    ("boltons:mathutils.Bits.__eq__:rw", "eq_plus_ne"):
        "screen: a new comparison dunder (def __ne__)",
    ("boltons:iterutils.windowed_iter:off_by_one", "empty_iter"):
        "oracle of calls: another iterator class than the pristine zip() on the tests' inputs",
    ("boltons:dictutils.OrderedMultiDict.copy:rw", "attr_on_copy"):
        "oracle of calls: an attribute the pristine copy does not have",
}
