"""Schemathesis hooks: send query strings and form bodies the way Stripe's SDKs encode them.

OpenAPI 3.1 has no style for Stripe's bracket nesting: its `deepObject` is defined for objects
only, and arrays under `form` style go out as repeated keys (`expand=a&expand=b`), which Purse, like
Rack and Stripe, reads as one value (the last) rather than a list. The document therefore says, in
words, that forms use bracket nesting; this hook makes schemathesis follow it, encoding every list
as `key[0]=..&key[1]=..` and every object as `key[field]=..`, exactly as stripe-python does. Only the
encoding changes: what is sent (valid or deliberately invalid) stays what schemathesis generated.
"""
import schemathesis


def _flatten(key, value, out):
    if isinstance(value, dict):
        if not value:
            out.append((key, ""))
        for field, child in value.items():
            _flatten(f"{key}[{field}]", child, out)
    elif isinstance(value, (list, tuple)):
        if not value:
            # An empty value clears a list (Stripe's convention, and the only way a form can say []).
            out.append((key, ""))
        for index, child in enumerate(value):
            _flatten(f"{key}[{index}]", child, out)
    elif value is None:
        # JSON's null is "unset", which a form says with an empty value.
        out.append((key, ""))
    elif isinstance(value, bool):
        out.append((key, "true" if value else "false"))
    else:
        out.append((key, value if isinstance(value, (str, bytes)) else str(value)))


def stripe_pairs(params):
    """`{"a": [1, {"b": 2}]}` as the pairs `[("a[0]", "1"), ("a[1][b]", "2")]`."""
    out = []
    for key, value in params.items():
        _flatten(str(key), value, out)
    return out


def _is_form(case):
    return (case.media_type or "").startswith("application/x-www-form-urlencoded")


@schemathesis.hook
def before_call(ctx, case, **kwargs):
    if isinstance(case.query, dict):
        case.query = dict(stripe_pairs(case.query))
    if _is_form(case) and isinstance(case.body, dict):
        # A dict (flattened keys are distinct) keeps the order; `requests` percent-encodes it.
        case.body = dict(stripe_pairs(case.body))


# A JSON body is read as the form it stands for: scalars become their text (`12` and `"12"`,
# `true` and `"true"` are the same parameter) and an empty container is an empty value, as
# docs/api.md says. So a negative case whose only change is swapping one JSON scalar type for
# another, or a container for an empty one, sends a request Purse rightly accepts. Only those
# failures are dropped; any other accepted violation in a JSON body still fails.
def _same_form_spelling(mutation):
    value = mutation.new_value
    scalar = isinstance(value, (str, int, float, bool)) or value is None
    empty = isinstance(value, (list, dict)) and not value
    return str(getattr(mutation.operator, "value", mutation.operator)) == "change_type" and (scalar or empty)


@schemathesis.hook
def filter_failure(ctx, failure, case, response):
    if getattr(failure, "code", None) != "ST201" or not (case.media_type or "").startswith("application/json"):
        return True
    mutations = getattr(getattr(getattr(case.meta, "phase", None), "data", None), "mutations", None) or ()
    body_mutations = [m for m in mutations if getattr(m.parameter_location, "value", None) == "body"]
    return not (body_mutations and len(body_mutations) == len(mutations) and all(map(_same_form_spelling, body_mutations)))
