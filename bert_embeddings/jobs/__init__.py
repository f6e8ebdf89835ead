"""Background jobs: the heavy work a page asks for and everyone then shares (a t-SNE map, a
stage space's neighbour lists, aligned maps), computed once in a worker process and kept on disk.

One small interface, used by maps/ and spaces/, which own what their jobs compute:

- ``local.start(folder, finished, inputs, worker, what)``: the finished result, or the job
  making it (joined, queued, failed, or started now); ``local.job_in(folder)``: the job this
  process knows of, failures included; ``local.retry(folder)``: forget a failure;
- ``progress.read`` and ``progress.time_left``: how far a job has come and the time it has left
  (``forecast`` for a t-SNE map's stages; ``pace``, this server's pace on its last map);
- ``worker.run`` and ``worker.reporter``: a worker process's life and its progress reports;
- ``files``: atomic writes, arrays vouched for by checksums, leftovers swept;
- ``priority``: background work's CPU priority.
"""
