"""[pure] The package documents itself: every public class and function of every public module,
and every public method and property of those classes, has a docstring of its own (a dataclass's
generated signature does not count)."""
import importlib
import inspect
import pkgutil

import adreno


def public_names():
    """(qualified name, object) of adreno's exports and of each public module's own classes and
    functions."""
    found = {f"adreno.{name}": getattr(adreno, name) for name in adreno.__all__}
    for module_info in pkgutil.iter_modules(adreno.__path__):
        if module_info.name.startswith("_"):
            continue
        module = importlib.import_module(f"adreno.{module_info.name}")
        for name, value in vars(module).items():
            if name.startswith("_") or getattr(value, "__module__", None) != module.__name__:
                continue
            if inspect.isclass(value) or inspect.isfunction(value):
                found[f"{module.__name__}.{name}"] = value
    return found


def own_docstring(cls):
    """The class's docstring as written, None for none or one dataclasses generated."""
    doc = cls.__dict__.get("__doc__")
    return None if not doc or doc.startswith(f"{cls.__name__}(") else doc


def members_of(cls):
    """(name, function or property) of the public methods and properties the package defines on
    `cls` and its bases; enum members, fields and constants are values, not members to document."""
    for base in cls.__mro__:
        if not base.__module__.startswith("adreno"):
            continue
        for name, member in vars(base).items():
            if name.startswith("_"):
                continue
            if isinstance(member, (staticmethod, classmethod)):
                yield name, member.__func__
            elif isinstance(member, property) or inspect.isfunction(member):
                yield name, member


def test_every_public_class_function_method_and_property_has_a_docstring_pure():
    missing = []
    names = public_names()
    for qualified, value in names.items():
        if inspect.isclass(value):
            if own_docstring(value) is None:
                missing.append(qualified)
            missing += [f"{qualified}.{name}" for name, member in members_of(value) if not inspect.getdoc(member)]
        elif callable(value) and not inspect.getdoc(value):
            missing.append(qualified)
    assert not sorted(set(missing)), "no docstring: " + ", ".join(sorted(set(missing)))
    # The walk reaches what it must: the classes of every module, and properties and methods.
    assert {"adreno.GraphInfo", "adreno.types.Sampler", "adreno.buffer.Buffer"} <= set(names)
    assert {"memory_type", "view", "close", "closed"} <= {name for name, _ in members_of(adreno.Buffer)}
