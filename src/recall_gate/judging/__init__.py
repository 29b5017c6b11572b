"""The judge: how a run is judged, in one room below the command handlers.

It is the same concept as the judge job of the PR check: the capture (perhaps
made by untrusted code) is data; the judge decides with the base's rules.

- ``revision``: which revision judges (the baseline ref, the event's base SHA,
  the base's config), and what the pull request changes of the gate;
- ``oracle``: the cases, qrels or baseline records that label the capture, as
  the base has them, and the cases the pull request adds;
- ``knowledge_base``: the KB as read, and the pull request's KB diff;
- ``query_traffic``: the query log's diff against the base's snapshot;
- ``capture_scoring``: the capture scored once, checked as it streams;
  ``file_scoring``: a capture file or a TREC run (with the base's qrels) judged;
  ``outputs``: what a judged run writes, as the handler read it from its flags;
- ``verdict``: the baseline compared, the floors and tolerances applied, the
  report written, the exit code;
- ``dataset_notes``: what ``check`` says of leakage and case languages.

Data flows one way: the handlers (:mod:`recall_gate.commands`) call the judge;
the judge composes the settings, the pure core, the adapters and the report,
and imports no handler.
"""
