"""Torch's threads: every call computes with the count the server is configured for."""

from bert_embeddings.models import threads


def test_torch_computes_with_the_configured_threads_whatever_another_library_set():
    """Another library in the process may change the OpenMP threads torch's sums are shared by; a
    forward pass's last bits depend on them (a lesson's handout must give its page's numbers), so
    the count is set back before the next call."""
    torch = threads.torch_module()
    wanted = threads.thread_count()
    torch.set_num_threads(wanted + 1)
    try:
        assert threads.torch_module().get_num_threads() == wanted
    finally:
        torch.set_num_threads(wanted)
