"""What the tests and the benchmarks both use: a running app in Chromium, random checkpoints
of any BERT family written to disk, and a stand-in Hugging Face Hub on 127.0.0.1.

It lives apart from tests/ so that a benchmark never imports a test module, and nothing here
is collected as a test.
"""
