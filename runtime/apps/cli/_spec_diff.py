"""``mnemowire spec diff OLD NEW``: every change between two spec versions, classified by
direction and kind, as text, JSON, Markdown, GitHub annotations or JUnit XML."""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from xml.etree import ElementTree

import click

from mnemowire import spec
from mnemowire.apps.cli._app import Exit
from mnemowire.apps.cli._spec import spec_group
from mnemowire.errors import SpecError
from mnemowire.spec import diff as spec_diff

__all__ = ["RENDERERS", "change_table", "diff_command", "summary"]


def _text(report: spec_diff.DiffReport, folders: tuple[Path, Path]) -> str:
    lines = [
        f"{c.rule.level:<4} {c.rule.id}  {c.message} {c.path or '/'}: {c.detail}; {c.rule.why}"
        for c in report.changes
    ]
    return "\n".join(lines)


def _markdown(report: spec_diff.DiffReport, folders: tuple[Path, Path]) -> str:
    heading = [f"## spec {report.old.version} → {report.new.version}", "", summary(report)]
    return "\n".join([*heading, "", *change_table(report.changes)] if report.changes else heading)


def change_table(changes: Sequence[spec_diff.Change]) -> list[str]:
    """The changes as the rows of a Markdown table, its header first (the changelog's too)."""
    rows = [
        "| level | rule | message | where | change | what it does |",
        "|---|---|---|---|---|---|",
    ]
    rows += [
        f"| {c.rule.level} | `{c.rule.id}` | `{c.message}` | `{c.path or '/'}` | "
        f"{_cell(c.detail)} | {_cell(c.rule.why)} |"
        for c in changes
    ]
    return rows


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _github(report: spec_diff.DiffReport, folders: tuple[Path, Path]) -> str:
    """Workflow commands: each change an annotation on the message's schema file."""
    kinds = {"ERR": "error", "WARN": "warning", "INFO": "notice"}
    lines = []
    for c in report.changes:
        removed = c.rule.id.endswith(".message.removed")
        file = (folders[0] if removed else folders[1]) / f"{c.message}.json"
        title = _escape_property(c.rule.id)
        text = _escape_data(f"{c.path or '/'}: {c.detail}; {c.rule.why}")
        lines.append(
            f"::{kinds[c.rule.level]} file={_escape_property(str(file))},title={title}::{text}"
        )
    return "\n".join(lines)


def _escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(text: str) -> str:
    return _escape_data(text).replace(":", "%3A").replace(",", "%2C")


def _junit(report: spec_diff.DiffReport, fail_on: str) -> str:
    """One test case per message; a change at or above ``fail_on`` is its failure."""
    failing = set(report.at_least(fail_on))
    messages = sorted(set(report.old.messages) | set(report.new.messages))
    suite = ElementTree.Element(
        "testsuite",
        name=f"spec diff {report.old.version} -> {report.new.version}",
        tests=str(len(messages)),
        failures=str(len({c.message for c in report.changes if c in failing})),
    )
    for message in messages:
        case = ElementTree.SubElement(suite, "testcase", classname="spec diff", name=message)
        mine = [c for c in report.changes if c.message == message]
        failed = [c for c in mine if c in failing]
        if failed:
            failure = ElementTree.SubElement(
                case, "failure", type=failed[0].rule.id, message=f"{len(failed)} change(s)"
            )
            failure.text = "\n".join(
                f"{c.rule.level} {c.rule.id} {c.path}: {c.detail}" for c in failed
            )
        others = [c for c in mine if c not in failing]
        if others:
            out = ElementTree.SubElement(case, "system-out")
            out.text = "\n".join(_line(c) for c in others)
    root = ElementTree.Element("testsuites")
    root.append(suite)
    return ElementTree.tostring(root, encoding="unicode", xml_declaration=True)


def _line(change: spec_diff.Change) -> str:
    return f"{change.rule.level} {change.rule.id} {change.path or '/'}: {change.detail}"


def summary(report: spec_diff.DiffReport) -> str:
    counts = report.counts()
    declared = report.declared_bump
    says = "is not newer" if declared is None else f"declares {declared}"
    if report.required_bump == "major" and declared == "minor" and report.bump_ok:
        says += " (before 1.0 a minor bump may break, through v0.5)"
    required = "no" if report.required_bump == "none" else f"a {report.required_bump}"
    return (
        f"spec {report.old.version} -> {report.new.version}: {counts['ERR']} ERR, "
        f"{counts['WARN']} WARN, {counts['INFO']} INFO; the changes require {required} "
        f"bump, the version number {says}"
    )


RENDERERS: dict[str, Callable[[spec_diff.DiffReport, tuple[Path, Path]], str]] = {
    "text": _text,
    "json": lambda report, folders: spec_diff.dumps(report),
    "markdown": _markdown,
    "github": _github,
}
FOLDER = click.Path(exists=True, file_okay=False, path_type=Path)


@spec_group.command("diff")
@click.argument("old", type=FOLDER)
@click.argument("new", type=FOLDER)
@click.option(
    "--format",
    "output",
    type=click.Choice([*RENDERERS, "junit"]),
    default="text",
    show_default=True,
    help="text, json (spec/diff/report.schema.json), markdown, github (workflow annotations) "
    "or junit (XML, one test case per message).",
)
@click.option(
    "--fail-on",
    type=click.Choice(spec_diff.LEVELS),
    default=None,
    help="Exit 1 when a change is at this level or above (INFO, WARN, ERR); junit reports "
    "those as failures (ERR when not given).",
)
@click.option(
    "--check-bump",
    is_flag=True,
    help="Exit 1 unless NEW's version number allows the bump the changes require (a break: "
    "a major bump, or before 1.0 a minor one through v0.5).",
)
def diff_command(old: Path, new: Path, output: str, fail_on: str | None, check_bump: bool) -> None:
    """Compare the spec version folder OLD with NEW (e.g. spec/v0 spec/v0.1).

    Each folder's version is the one its schemas' $ids name (.../spec/v0.1/common.json), so
    the folders may have any name. Each change gets a rule id, a level (ERR breaks existing
    peers, WARN needs care, INFO is safe) and the bump it requires, by direction: requests
    (closed: what clients send) and responses (open: what stores send). The rules:
    docs/spec/diff.md.
    """
    report = spec_diff.diff(_read(old, "OLD"), _read(new, "NEW"))
    if output == "junit":
        text = _junit(report, fail_on or "ERR")
    else:
        text = RENDERERS[output](report, (old, new))
    if text:
        click.echo(text)
    click.echo(summary(report), err=True)
    failed = False
    if fail_on is not None and report.at_least(fail_on):
        click.echo(f"changes at {fail_on} or above: failing (--fail-on {fail_on})", err=True)
        failed = True
    if check_bump and not _bump_ok(report):
        failed = True
    if failed:
        sys.exit(Exit.REJECTED)


def _read(folder: Path, argument: str) -> spec.SpecFiles:
    if not (folder / "common.json").is_file():
        raise click.UsageError(
            f"{argument}: {folder} is not a spec version folder (it has no common.json); "
            "give two folders like spec/v0 spec/v0.1"
        )
    try:
        return spec_diff.read_version(folder)
    except SpecError as exc:
        raise click.BadParameter(str(exc), param_hint=repr(argument)) from exc


def _bump_ok(report: spec_diff.DiffReport) -> bool:
    if report.bump_ok:
        return True
    old, new = report.old.version, report.new.version
    if report.declared_bump is None:
        click.echo(f"--check-bump: {new} is not newer than {old}", err=True)
    else:
        broken = report.declared_bump == "minor" and report.required_bump == "major"
        why = "; a break needs a major bump (a minor one only up to v0.5)" if broken else ""
        click.echo(
            f"--check-bump: the changes require a {report.required_bump} bump, but {old} -> "
            f"{new} declares {report.declared_bump}{why}",
            err=True,
        )
    return False
