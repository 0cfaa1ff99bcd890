from __future__ import annotations

from pathlib import Path

from conftest import shared, write
from footnoted import Delta, Done, Footnoted, Refusal, Sources, Started
from footnoted.answering.citations import answer_markdown
from footnoted.answering.evidence import Read
from footnoted.answering.pipeline import Pipeline
from footnoted.answering.quotes import quote
from footnoted.api.wire import answer_payload
from footnoted.inference.reader import Reading
from footnoted.lexical import MARKER


def test_extractive_answer_quotes_at_most_three_cited_sentences(samples_service: Footnoted) -> None:
    result = samples_service.answer("How are annual plans refunded?")
    answer = result.answer
    assert answer is not None
    pieces = MARKER.split(answer.text)
    sentences = [p.strip() for p in pieces[0::2] if p.strip()]
    numbers = [int(n) for n in pieces[1::2]]
    assert 1 <= len(sentences) <= 3
    assert len(numbers) == len(sentences)  # each sentence followed by one [N]
    assert "refunded in full" in answer.text
    assert list(answer.referenced) == sorted(set(numbers), key=numbers.index)
    assert [c.index for c in answer.citations] == list(range(1, len(answer.citations) + 1))
    first = answer.citations[0]
    assert first.document_title == "Northwind Cloud Customer Handbook"
    assert first.section == "Northwind Cloud Customer Handbook > Refunds > Annual plans"
    assert 0 < first.score <= 1
    assert len(first.excerpt) <= 201


def test_spans_point_at_the_exact_source_text(samples_service: Footnoted) -> None:
    result = samples_service.answer("What encryption is used for files at rest?")
    answer = result.answer
    assert answer is not None and answer.spans
    by_index = {c.index: c for c in answer.citations}
    for span in answer.spans:
        quoted = answer.text[span.answer_start : span.answer_end]
        doc_text = samples_service.store.document_text(by_index[span.index].document_id)
        assert doc_text[span.doc_start : span.doc_end] == quoted
        assert answer.text[span.answer_end :].startswith(f" [{span.index}]")


def test_sources_block_lists_titles_pages_and_sections(samples_service: Footnoted) -> None:
    result = samples_service.answer("How long are audit logs kept on the Team plan?")
    assert result.answer is not None
    markdown = answer_markdown(result.answer)
    assert "**Sources**" in markdown
    assert "1. Data Retention Policy — Section Data Retention Policy > Audit logs" in markdown


def test_ask_streams_typed_events_in_order(samples_service: Footnoted) -> None:
    events = list(samples_service.ask("What is the target first response time for Team customers?"))
    assert isinstance(events[0], Started)
    deltas = [e for e in events if isinstance(e, Delta)]
    assert len(deltas) > 1
    assert isinstance(events[-2], Sources) and isinstance(events[-1], Done)
    assert "".join(d.text for d in deltas) == events[-1].answer
    assert "4 hours" in events[-1].answer


def test_ask_refusal_is_a_single_event(samples_service: Footnoted) -> None:
    events = list(samples_service.ask("What is the boiling point of mercury?"))
    assert len(events) == 1 and isinstance(events[0], Refusal)


def test_answer_payload_matches_the_chat_contract(samples_service: Footnoted) -> None:
    result = samples_service.answer("When is payment due?")
    assert result.answer is not None
    payload = answer_payload(result.answer, session_id="s", message_id="m")
    assert payload["type"] == "answer"
    assert set(payload) >= {
        "session_id", "message_id", "answer", "answer_markdown", "citations",
        "referenced_indices", "spans", "citation_map",
    }  # fmt: skip
    cmap = payload["citation_map"]
    assert isinstance(cmap, dict) and "1" in cmap
    assert set(cmap["1"]) == {"text", "source", "title", "score", "metadata"}
    assert set(cmap["1"]["metadata"]) == {"page", "section"}
    bare = answer_payload(result.answer, include_citations=False)
    assert "citations" not in bare and "[1]" not in str(bare["answer"])


def test_markdown_escapes_html_from_documents(service: Footnoted, tmp_path: Path) -> None:
    write(
        tmp_path / "x.txt", "The launch code is <script>alert('xss')</script> hidden in the vault."
    )
    service.ingest([tmp_path / "x.txt"])
    result = service.answer("What is the launch code hidden in the vault?")
    assert result.answer is not None
    markdown = answer_markdown(result.answer)
    assert "<" not in markdown
    assert "&lt;script>alert('xss')&lt;/script>" in markdown


def test_quotes_leave_out_the_documents_own_footnote_markers(
    service: Footnoted, tmp_path: Path
) -> None:
    doc = write(
        tmp_path / "lighthouse.md",
        "# Lighthouse\n\nThe Skerry lighthouse was first lit in 1844 by the harbour board.[2] "
        "Its lamp burned whale oil until 1901.[3][4] Keepers lived on the rock in turns.\n",
    )
    service.ingest([doc])
    result = service.answer("When was the Skerry lighthouse first lit?")
    assert result.answer is not None
    answer = result.answer
    text = service.store.document_text(answer.citations[0].document_id)
    markers = {m.group(0) for m in MARKER.finditer(answer.text)}
    assert markers == {"[1]"}, answer.text  # only the answer's own citation
    assert "first lit in 1844 by the harbour board. [1]" in answer.text
    for span in answer.spans:  # still verbatim
        quoted = answer.text[span.answer_start : span.answer_end]
        assert quoted == text[span.doc_start : span.doc_end]


def test_an_excerpt_does_not_repeat_the_heading_its_section_shows() -> None:
    from footnoted.answering.citations import excerpt

    text = "Annual plans\n\nAnnual plans are refunded in full when cancelled within 30 days."
    assert excerpt(text, "Handbook > Refunds > Annual plans").startswith("Annual plans are")
    assert excerpt(text, None).startswith("Annual plans Annual plans")  # no section: kept
    assert excerpt(text, "Refunds").startswith("Annual plans Annual plans")  # another heading
    one_line = "Annual plans are refunded in full."
    assert excerpt(one_line, "Annual plans") == one_line  # a sentence, not a heading line
    assert excerpt("word " * 100, "x").endswith("…") and len(excerpt("word " * 100)) <= 201


def test_a_comparison_of_two_documents_quotes_both(service: Footnoted, tmp_path: Path) -> None:
    service.ingest(
        [
            write(
                tmp_path / "north.md",
                "# Northcape Lighthouse\n\nThe Northcape Lighthouse is a granite tower on the "
                "northern cape, first lit in 1851. Its keepers were paid by the harbour board.\n",
            ),
            write(
                tmp_path / "south.md",
                "# Southpoint Lighthouse\n\nThe Southpoint Lighthouse is a cast-iron tower at "
                "the river mouth, first lit in 1888. It was automated in 1962.\n",
            ),
            write(
                tmp_path / "ferry.md",
                "# Harbour ferry\n\nThe harbour ferry crosses to the northern cape twice a day.\n",
            ),
        ]
    )
    question = "Are the Northcape Lighthouse and the Southpoint Lighthouse both made of granite?"
    result = service.answer(question)
    assert result.answer is not None, result.refusal
    answer = result.answer
    assert answer.text.startswith("The Northcape Lighthouse is a granite tower"), answer.text
    assert "The Southpoint Lighthouse is a cast-iron tower" in answer.text
    quoted = [c for c in answer.citations if c.index in answer.referenced]
    assert [c.document_title for c in quoted] == ["Northcape Lighthouse", "Southpoint Lighthouse"]
    assert all(s.exact_start is None for s in answer.spans)  # no span claims to be the answer
    assert answer.grounding is not None and 0 < answer.grounding["confidence"] < 1
    alone = service.answer("Is the Northcape Lighthouse made of granite?")  # one side only
    assert alone.answer is None or "Southpoint" not in alone.answer.text


def test_a_document_that_asks_the_question_itself_answers_it_next(service: Footnoted) -> None:
    """The OWASP Top 10 deck asks "How Do I Prevent CSRF?" on its CSRF slide and answers
    in the next sentence; the reader led with the release notes' sentence on why CSRF
    fell in the ranking."""
    deck = shared("docs-more", "owasp-top10__OWASP_Top_10_-_2013_Final_-_English.pptx")
    assert not service.ingest([deck]).failed
    result = service.answer("How do you prevent CSRF according to OWASP 2013?")
    assert result.answer is not None, result.refusal
    assert result.read[0].posed
    assert result.answer.text.startswith(
        "Preventing CSRF usually requires the inclusion of an unpredictable token"
    )


def test_a_question_that_points_back_asks_with_the_sentence_before_it(
    service: Footnoted, tmp_path: Path
) -> None:
    """ "Fierce Nerds" asks "How do you avoid this fate?" after "… your fierceness will
    turn to bitterness …" and answers "Work on ambitious projects."; its question holds
    one word of "How can a fierce nerd avoid turning bitter?" alone. A question pointing
    back to a sentence that holds none of the other words asked is not the same one."""
    essay = shared("html", "R2R__pg_essay_2.html")
    guide = write(
        tmp_path / "backups.md",
        "# Backups\n\nNightly backups stop when the disk fills up. How do you avoid this? "
        "Keep a tenth of the disk free and prune old archives every week.\n",
    )
    assert not service.ingest([essay, guide]).failed
    result = service.answer("How can a fierce nerd avoid turning bitter?")
    assert result.answer is not None, result.refusal
    assert result.read[0].posed
    assert result.answer.text.startswith("Work on ambitious projects.")
    other = service.answer("How do you avoid slow logins on the admin page?")
    assert not any(r.posed for r in other.read)


def test_a_question_in_a_list_of_questions_is_not_answered_by_the_next(
    service: Footnoted, tmp_path: Path
) -> None:
    """A quiz's questions follow one another; the sentence after one is no answer to it.
    A question the document asks with fewer of the question's words is not the same."""
    quiz = write(
        tmp_path / "quiz.md",
        "# Check your understanding\n\nWhat information matters when reviewing a vendor's "
        "component?\n\nWhat steps assess the quality of the information collected in a "
        "review?\n\nNotes: gather and analyze information on component usage and produce "
        "guidance for the teams.\n",
    )
    faq = write(
        tmp_path / "faq.md",
        "# Questions\n\nHow do I rotate the keys?\n\nRotate the keys from the admin page "
        "every ninety days, then restart the service.\n",
    )
    assert not service.ingest([quiz, faq]).failed
    steps = service.answer("What steps assess the quality of the information collected?")
    assert not any(r.posed for r in steps.read)
    other = service.answer("How do I rotate the logs of the service?")
    assert not any(r.posed for r in other.read)  # "logs" is not in the document's question
    asked = service.answer("How do I rotate the keys?")
    assert asked.read and asked.read[0].posed
    assert asked.answer is not None and asked.answer.text.startswith("Rotate the keys")


def test_a_document_deleted_while_its_question_is_read_still_answers_from_the_passage(
    service: Footnoted, tmp_path: Path
) -> None:
    """The answer reads past its passage (a lead-in's list) in the document's text; where
    the document is deleted just then, the passage already read is quoted, not failed."""
    items = "\n".join(f"- Element number {n} of the record." for n in range(1, 4))
    text = f"# Records\n\nEvery record must include the following elements:\n\n{items}\n"
    report = service.ingest([write(tmp_path / "docs" / "records.md", text)])
    assert not report.failed, report.failed
    (document,) = service.store.list_documents()

    def deleted_as_read(document_id: str, start: int, end: int) -> str:
        service.delete(document.id)  # the store then has no text for it: NotFound
        return service.store.document_text(document_id, start, end)

    chunks = service.store.document_chunks
    pipeline = Pipeline(service.settings, service.retriever, service.embedder,
                        service.llm_settings, deleted_as_read, chunks)  # fmt: skip
    asked = service.question("What must every record include?")
    result = pipeline.answer(pipeline.prepare(asked))
    assert result.answer is not None, result.refusal
    assert "Element number 3 of the record." in result.answer.text
    assert not service.store.list_documents()  # it was deleted as the answer read on


def test_a_default_asked_is_answered_by_the_sentence_saying_it_not_an_example(
    service: Footnoted, tmp_path: Path
) -> None:
    """A backup tool's guide gives one key a default and another only an example. Asked
    the default of the first, the sentence saying it answers, not the one beside it the
    reader prefers; asked the default of the second, its example is no default: refused."""
    guide = "\n".join(
        [
            "# Uploads", "",
            "## BM_UPLOAD_SSH_PORT", "",
            "_Type: integer_", "",
            "You may want to connect to remote hosts with a specific port. Use this "
            "configuration key then.", "",
            "Example:", "",
            'export BM_UPLOAD_SSH_PORT="1352"', "",
            "# MySQL databases", "",
            "## BM_MYSQL_PORT", "",
            "_Type: string, default: `3306'._", "",
            "The port on `BM_MYSQL_HOST' where the mysql server is listening.", "",
            "Example:", "",
            'export BM_MYSQL_PORT="3306"', "",
        ]
    )  # fmt: skip
    report = service.ingest([write(tmp_path / "docs" / "guide.md", guide)])
    assert not report.failed, report.failed
    mysql = service.answer("What port does the MySQL backup method use by default (BM_MYSQL_PORT)?")
    assert mysql.answer is not None, mysql.refusal
    assert "default: `3306'" in mysql.answer.text
    ssh = service.answer("What is the default value of BM_UPLOAD_SSH_PORT?")
    assert ssh.answer is None, ssh.answer.text


SLIDES = (
    "# Project goal\n\nContinuous availability with no single point of failure\n\n"
    "Linear scalability\n\nMulti datacentre replication\n\n"
    "# Current status\n\nTwo clusters run in production, one per site, since March.\n\n"
    "# Conclusion\n\nGreat archiving design!\n\nEasy to add support to a new back-end\n\n"
    "Cassandra works!\n\nContinuous availability (when well used)\n\nWrite performance\n\n"
    "Next Step:\n\nReduce partitions size\n\nAn analytics datacentre\n\n"
    "Results Table 2:\n\nGrenoble runs three nodes\n\n"
    "# Syntax\n\nA pariah expression:\n\n(pariah expr expr ...)\n\n"
    "It tells the compiler that the expressions within it are unlikely to be run.\n\n"
    "# Fragments\n\nTheoretical fragment masses:\n\n"
    "The table lists the masses of the amino acids for the ion types selected. A mass "
    "matched in the spectrum is highlighted in green.\n\n"
    "# Ibuprofen\n\nSide effects:\n\nNausea and heartburn\n"
)


def test_a_label_the_question_names_brings_what_it_introduces(
    service: Footnoted, tmp_path: Path
) -> None:
    """A slide's "Next Step:" over its bullets: asked "what is the next step", the label
    is read, and quoted with the line it introduces, not another bullet of the slide. A
    label with a number is a caption, one opening with an article a term's over its
    syntax, one over sentences their heading, and a passage lacking what else the
    question names (the side effects of another drug) answers nothing: none is read at
    them."""
    assert not service.ingest([write(tmp_path / "docs" / "talk.md", SLIDES)]).failed
    result = service.answer("According to the conclusion, what is the next step for the archive?")
    assert result.answer is not None, result.refusal
    assert "Next Step:" in result.answer.text and "Reduce partitions size" in result.answer.text
    assert "Continuous availability" not in result.answer.text
    for question in (
        "What is in results table 2?",
        "What is a pariah expression?",
        "In the theoretical fragment masses table, what colour marks a matched mass?",
        "What are the side effects of aspirin?",
    ):
        read = service.pipeline.prepare(service.question(question)).read
        assert not any(r.posed or r.labelled for r in read), question


EXAMPLES = (
    "# GraphRAG\n\nGraphRAG constructs a graph on your dataset and queries it using LLMs. "
    "It natively supports population level queries, but construction is very expensive.\n\n"
    "# Global search\n\n"
    "- Most existing algorithms struggle with population level queries such as\n"
    "- Who are the main competitors of company X?\n"
    "- Who has worked with person X?\n"
    "- What does Paul Graham generally write about?\n\n"
    "# Checklist\n\n"
    "Any unknown copyleft licensed (Affero GPL, GPL, LGPL, MPL) code used in proprietary "
    "software?\n\n"
    "Any dual-licensed software that the target is using under a commercial license "
    "(MySQL, Ghostscript)?\n\n"
    "# Caching\n\n"
    "In the caching example (cookie, coke), the price is changed and the product deleted. "
    "The changes are written when the context commits.\n\n"
    "# Attacks\n\n"
    "Attacks on membership inference models (see Table 2, Figure 3) are common, and "
    "attacks on membership inference models (Smith, 2019) are cheap.\n\n"
    "Is any proprietary firmware shipped to customers? Copyleft licences (GPL, LGPL, MPL) "
    "must be reviewed first.\n\n"
    "# Budget\n\n"
    "The board reviewed quarterly spending decisions and several other items including\n"
    "the budget, which was approved without changes after a short debate.\n"
)


def test_asked_for_examples_the_passage_giving_them_after_what_they_are_of_is_read(
    service: Footnoted, tmp_path: Path
) -> None:
    """ "Give examples of population-level queries": the lead-in ending "such as" is read
    and quoted with the items it introduces (not the sentence that only says such
    queries are supported); examples of dual-licensed software are the parenthesis after
    it, not the copyleft licences before. A question about an example, one asking
    something else of examples, one about examples of something no passage names, reads
    no examples; nor is a parenthesis of references or a citation, a list after another
    sentence, or a sentence wrapped on after "including" read as examples."""
    assert not service.ingest([write(tmp_path / "docs" / "talk.md", EXAMPLES)]).failed
    result = service.answer("Give examples of population-level queries from the slides")
    assert result.answer is not None, result.refusal
    text = result.answer.text
    assert "such as" in text and "Who are the main competitors of company X?" in text
    assert "Who has worked with person X?" in text
    assert "construction is very expensive" not in text
    read = service.pipeline.prepare(
        service.question("Examples of dual-licensed software used under a commercial license?")
    ).read
    assert read and read[0].labelled
    chunk = read[0].hit.chunk
    assert chunk.text[read[0].reading.start : read[0].reading.end] == "MySQL, Ghostscript"
    for question in (
        "In the caching example, when are the changes written?",
        "Give examples of population-level hardware from the slides",
        "Why are examples of population-level queries hard for existing algorithms?",
        "Give examples of attacks on membership inference models",  # a reference, a citation
        "What are some examples of proprietary firmware shipped to customers?",  # "?" ends it
        "Give examples of the quarterly spending decisions the board reviewed",  # wrapped on
    ):
        read = service.pipeline.prepare(service.question(question)).read
        assert not any(r.labelled for r in read), question


NEWS = (
    "# GNU coreutils NEWS\n\n"
    "## Noteworthy changes in release 9.0 (2021-09-24) [stable]\n\n"
    "### Bug fixes\n\n"
    "chmod -v no longer misreports modes of dangling symlinks. cp -a no longer fails to "
    "preserve extended attributes on a directory it creates. df no longer outputs "
    "duplicate remote mounts in the presence of bind mounts.\n\n"
    "### New features\n\n"
    "cksum -a now supports the 'sm3' argument, to use the SM3 digest algorithm.\n\n"
    "## Noteworthy changes in release 8.26 (2016-11-30) [stable]\n\n"
    "### Bug fixes\n\n"
    "cp, mv, and install no longer run into undefined behavior when moving from ext4 "
    "hard links. ls no longer prints a spurious error on a file it cannot stat. tail -f "
    "no longer hangs when the file it follows is truncated.\n\n"
    "### New programs\n\n"
    "b2sum is added to support the BLAKE2 digest algorithm with a similar interface to "
    "the existing md5sum and sha1sum commands.\n\n"
    "# The mstate vignette\n\n## 6.1 The mstate package\n\n"
    "A current restriction in R is that packages on the recommended list should not "
    "depend on packages outside that list.\n"
)


def test_which_release_is_answered_under_the_release_its_section_path_names(
    service: Footnoted, tmp_path: Path
) -> None:
    """A changelog's line under "New programs" names no release: asked which release
    added it, the answer shows the release heading its section path names, printed
    above the passage. That heading is shown, not weighed: a line on SM3 under
    "release 9.0" does not answer which release brought SHA-3, and a section's number
    ("6.1 The mstate package") is no release."""
    assert not service.ingest([write(tmp_path / "docs" / "NEWS.md", NEWS)]).failed
    result = service.answer("Which coreutils release first added the b2sum program?")
    assert result.answer is not None, result.refusal
    assert "release 8.26 (2016-11-30) [stable]: b2sum is added" in result.answer.text
    sha3 = "In which coreutils release did cksum gain support for SHA-3 digests?"
    hits = service.pipeline.prepare(service.question(sha3)).retrieval.candidates
    hit = next(h for h in hits if "'sm3'" in h.chunk.text)
    at = hit.chunk.text.index("cksum -a")
    read = Read(hit, Reading(20.0, at, at + len("cksum -a now supports")), 20.0)
    assert "release 9.0" in quote(read, service.pipeline.context, sha3).render()[0]
    assert not service.pipeline._answers(sha3, [read])  # no version in the passage itself
    mstate = "Which version of the survival package does the mstate vignette describe?"
    hits = service.pipeline.prepare(service.question(mstate)).retrieval.candidates
    hit = next(h for h in hits if "current restriction" in h.chunk.text)
    at = hit.chunk.text.index("A current")
    read = Read(hit, Reading(20.0, at, at + 9), 20.0)
    assert quote(read, service.pipeline.context, mstate).group is None  # "6.1" numbers it
