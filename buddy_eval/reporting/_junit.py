"""A document's test suites as JUnit XML, for GitLab, Jenkins and the test-report actions.

Every attribute value and every text goes through
:func:`~buddy_eval.formatting.xml_text`, whoever built the document.
"""

from __future__ import annotations

from xml.etree import ElementTree

from .._escaping import xml_text
from ._model import Document, Suite, TestCase

__all__ = ["render_junit"]


def _case(case: TestCase) -> ElementTree.Element:
    element = ElementTree.Element("testcase", classname=case.classname, name=case.name, time="0")
    if case.properties:
        properties = ElementTree.SubElement(element, "properties")
        for name, value in case.properties:
            ElementTree.SubElement(properties, "property", name=name, value=value)
    if case.skipped is not None:
        ElementTree.SubElement(element, "skipped", message=case.skipped)
    elif case.failure is not None:
        failure = ElementTree.SubElement(element, "failure", message=case.failure)
        if case.failure_type is not None:
            failure.set("type", case.failure_type)
        failure.text = case.detail
    return element


def _suite(parent: ElementTree.Element, suite: Suite) -> None:
    element = ElementTree.SubElement(
        parent, "testsuite", name=suite.name, tests=str(len(suite.cases))
    )
    element.set(
        "failures", str(sum(c.failure is not None and c.skipped is None for c in suite.cases))
    )
    element.set("errors", "0")
    element.set("skipped", str(sum(c.skipped is not None for c in suite.cases)))
    element.extend(_case(c) for c in suite.cases)


def render_junit(document: Document) -> str:
    """The document's suites under one ``testsuites`` root, with its totals, as XML text.

    Examples
    --------
    >>> from buddy_eval.reporting import Document, Suite, TestCase, render_junit
    >>> suite = Suite("checks", (TestCase("mine", "passes"), TestCase("mine", "fails", "why")))
    >>> print(render_junit(Document("example", "T", (), suites=(suite,), suites_name="mine")))
    <?xml version="1.0" encoding="UTF-8"?>
    <testsuites name="mine" tests="2" failures="1" errors="0" skipped="0">
      <testsuite name="checks" tests="2" failures="1" errors="0" skipped="0">
        <testcase classname="mine" name="passes" time="0" />
        <testcase classname="mine" name="fails" time="0">
          <failure message="why" />
        </testcase>
      </testsuite>
    </testsuites>
    <BLANKLINE>
    """
    root = ElementTree.Element("testsuites", name=document.suites_name)
    for suite in document.suites:
        _suite(root, suite)
    for total in ("tests", "failures", "errors", "skipped"):
        root.set(total, str(sum(int(s.get(total, "0")) for s in root)))
    for element in root.iter():
        for key, value in element.attrib.items():
            element.set(key, xml_text(value))
        if element.text is not None:
            element.text = xml_text(element.text)
    ElementTree.indent(root)
    body = ElementTree.tostring(root, encoding="unicode")
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + body + "\n"
