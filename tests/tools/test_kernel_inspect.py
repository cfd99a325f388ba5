"""KernelInspect against a real in-process IPython shell: summaries, and no user code ever runs."""

from __future__ import annotations

import pytest
from IPython.core.interactiveshell import InteractiveShell

from jupyter_agent.core.orchestration import ToolUseRequest, run_tool_use
from jupyter_agent.core.permission_types import PermissionDeny
from jupyter_agent.tools.kernel_inspect import KernelInspectInput, KernelInspectTool
from tests.support.tools import make_context

np = pytest.importorskip("numpy")

SETUP = """
import numpy as np
arr = np.arange(12, dtype="int64").reshape(3, 4)
objs = np.array([1, "two", None], dtype=object)
data = {"train": [1, 2, 3], "test": (4, 5), 7: "seven"}
xs = ["a", "b", "c"]
text = "x" * 5000

class Trap:
    calls = []
    def __repr__(self):
        Trap.calls.append("repr")
        return "TRAP"
    def __len__(self):
        Trap.calls.append("len")
        return 1
    def __getattr__(self, name):
        Trap.calls.append("getattr " + name)
        return 1
    def __getitem__(self, key):
        Trap.calls.append("getitem")
        return 1
    def __eq__(self, other):
        Trap.calls.append("eq")
        return other is self
    def __hash__(self):
        Trap.calls.append("hash")
        return hash("train")

class Model:
    kind = "linear"
    def __init__(self):
        self.coef_ = np.array([0.5, 1.5])
        self.trap = Trap()
    @property
    def boom(self):
        Trap.calls.append("property")
        return 1
    def fit(self):
        Trap.calls.append("fit")

class Shadow:
    @property
    def x(self):
        Trap.calls.append("shadow property")
        return 1
shadow = Shadow()
shadow.__dict__["x"] = 5

class Slotted:
    __slots__ = ("a",)
    def __init__(self):
        self.a = 3

class Liar:
    @property
    def __class__(self):
        Trap.calls.append("__class__")
        return dict
    def __init__(self):
        self.inner = [1]

model = Model()
trap = Trap()
liar = Liar()
slotted = Slotted()
tricky = {Trap(): "by trap", "train": "plain"}
mixed = [1, Trap(), "s"]
"""


@pytest.fixture(scope="module")
def shell():
    ip = InteractiveShell.instance()
    before = set(ip.user_ns)
    result = ip.run_cell(SETUP)
    assert result.success, result.error_in_exec
    yield ip
    for name in set(ip.user_ns) - before:
        del ip.user_ns[name]


@pytest.fixture
def run(shell, tmp_path):
    ctx = make_context([KernelInspectTool()], tmp_path)
    shell.user_ns["Trap"].calls.clear()

    async def call(**input):
        outcome = await run_tool_use(ToolUseRequest("t1", "KernelInspect", input), ctx, _deny)
        text = "\n".join(b["text"] for b in outcome.content if b.get("type") == "text")
        return outcome.is_error, text

    yield call
    assert shell.user_ns["Trap"].calls == []  # no user code ran, whatever the test did


async def _deny(*_args):  # read-only: the pipeline must allow it without asking anyone
    return PermissionDeny("asked")


def test_read_only_and_concurrency_safe():
    tool = KernelInspectTool()
    inp = KernelInspectInput(expression="df")
    assert tool.is_read_only(inp) and tool.is_concurrency_safe(inp)


async def test_numpy_array(run):
    err, text = await run(expression="arr")
    assert not err, text
    assert "arr: numpy.ndarray" in text and "shape: (3, 4)" in text and "dtype: int64" in text
    assert "[ 8  9 10 11]" in text


async def test_object_array_elements_are_rendered_safely(run):
    err, text = await run(expression="objs")
    assert not err and "dtype: object" in text and "1, 'two', None" in text


async def test_dict_list_and_literal_subscripts(run):
    err, text = await run(expression='data["train"]')
    assert not err and "length: 3" in text and "[2] 3" in text
    err, text = await run(expression="data[7]")
    assert not err and "'seven'" in text
    err, text = await run(expression="xs[-1]")
    assert not err and "'c'" in text
    err, text = await run(expression="data")
    assert "length: 3" in text and "['train'] list of 3" in text
    err, text = await run(expression="data['nope']")
    assert err and "no key 'nope'" in text


async def test_long_string_is_trimmed(run):
    err, text = await run(expression="text")
    assert not err and "length: 5000" in text and "3,000 more" in text


async def test_instance_attributes_are_read_properties_are_not(run):
    err, text = await run(expression="model")
    assert not err
    assert ".coef_ = ndarray(shape=(2,), dtype=float64)" in text
    assert ".trap = <__main__.Trap object>" in text
    assert "properties (not read: they run code): boom" in text
    err, text = await run(expression="model.coef_")
    assert not err and "[0.5 1.5]" in text
    err, text = await run(expression="model.kind")
    assert not err and "'linear'" in text


async def test_property_with_side_effects_is_not_run(run, shell):
    err, text = await run(expression="model.boom")
    assert err and "not a plain stored attribute" in text
    err, text = await run(expression="shadow.x")  # the instance dict entry is shadowed by a property
    assert err and "not a plain stored attribute" in text
    err, text = await run(expression="model.fit")
    assert err


async def test_user_dunders_are_never_called(run):
    err, text = await run(expression="trap")
    assert not err and "TRAP" not in text and "<__main__.Trap object>" in text
    err, text = await run(expression="trap.anything")  # would go through __getattr__
    assert err
    err, text = await run(expression="trap[0]")
    assert err and "could run code" in text
    err, text = await run(expression="tricky['train']")  # a key whose __eq__/__hash__ would run
    assert not err and "'plain'" in text
    err, text = await run(expression="mixed")
    assert not err and "<__main__.Trap object>" in text


async def test_a_lying_class_property_is_never_read(run):
    err, text = await run(expression="liar")
    assert not err and "liar: __main__.Liar" in text and ".inner = list of 1" in text
    err, text = await run(expression="liar.inner[0]")
    assert not err and "value: 1" in text
    err, text = await run()
    assert not err and "liar: <__main__.Liar object>" in text


async def test_slots_are_read(run):
    err, text = await run(expression="slotted.a")
    assert not err and "value: 3" in text


@pytest.mark.parametrize(
    "expression",
    [
        "__import__('os').system('x')",
        "df.to_csv('x')",
        "a.b()",
        "arr.__class__",
        "model.__dict__",
        "xs[0:2]",
        "data[name]",
        "arr + 1",
        "[x for x in xs]",
        "lambda: 0",
        "(yield)",
        "xs[0]; import os",
    ],
)
async def test_code_is_refused(run, tmp_path, expression):
    err, text = await run(expression=expression)
    assert err, text
    assert not (tmp_path / "x").exists()


async def test_names_and_missing(run):
    err, text = await run(names=["arr", "nope"])
    assert not err
    assert "arr: numpy.ndarray" in text and "nope: not defined in the kernel's namespace" in text
    err, text = await run(names=["arr.shape"])
    assert err and "not a variable name" in text
    err, text = await run(expression="arr", names=["xs"])
    assert err and "not both" in text


async def test_listing_without_arguments(run):
    err, text = await run()
    assert not err
    assert "arr: ndarray(shape=(3, 4), dtype=int64)" in text
    assert "data: dict of 3 ['train': list of 3" in text
    assert "\nIn:" not in text and "get_ipython" not in text


async def test_undefined_name(run):
    err, text = await run(expression="missing_var.x")
    assert err and "'missing_var' is not defined" in text


# -- pandas (not a dependency: skipped when missing) -----------------------------------------


@pytest.fixture
def frames(shell):
    pytest.importorskip("pandas")
    result = shell.run_cell(
        "import pandas as pd\n"
        "df = pd.DataFrame({'a': [1, 2, 3, 4, 5, 6], 'b': [1.5, 2.5, None, 4.0, 5.0, 6.0],"
        " 'c': ['x', 'y', 'z', 'u', 'v', 'w'], 'o': [Trap(), 1, 'k', None, 2.0, 'q']})\n"
    )
    assert result.success, result.error_in_exec
    yield shell
    for name in ("pd", "df"):
        shell.user_ns.pop(name, None)


async def test_dataframe_summary(frames, run):
    err, text = await run(expression="df")
    assert not err, text
    assert "shape: (6, 4)" in text
    assert "columns (4): a: int64, b: float64" in text
    assert "head(5):" in text and "NaN" in text and "<__main__.Trap object>" in text
    assert "w" not in text.split("head(5):")[1]  # only five rows


async def test_dataframe_columns_dtypes_and_column(frames, run):
    err, text = await run(expression="df.columns")
    assert not err and "Index of 4 [a, b, c, o]" in text
    err, text = await run(expression="df.dtypes")
    assert not err and "pandas.Series" in text
    err, text = await run(expression="df['b']")
    assert not err and "name: b" in text and "dtype: float64" in text
    err, text = await run(expression="df.to_csv")
    assert err and "only columns, dtypes" in text
    err, text = await run(expression="df['zz']")
    assert err and "KeyError" in text


def test_its_card_names_the_tool_and_does_not_repeat_the_title():
    """The card read '✔ df.columns · df.columns: pandas.Index', its body 'expression "df.columns"'."""
    from jupyter_agent.tools.kernel_inspect import KernelInspectInput, KernelInspectTool
    from jupyter_agent.ui import tool_views

    tool = KernelInspectTool()
    one = KernelInspectInput(expression="df.columns")
    assert tool_views.summary_line(tool, "KernelInspect", one) == "KernelInspect df.columns"
    assert tool.render_tool_use_message(KernelInspectInput(names=["df", "cfg"])) == "KernelInspect df, cfg"
    assert tool.render_tool_use_message(KernelInspectInput()) == "KernelInspect all variables"
    assert tool_views.input_detail_html("KernelInspect", one) == ""
