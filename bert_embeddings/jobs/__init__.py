"""Background jobs: the heavy work a page asks for and everyone then shares (a t-SNE map, a
stage space's neighbour lists, aligned maps), computed once in a worker process and kept on disk.

The rule every job follows, whichever backend runs it: a job known to be running, waiting its
turn or failed is shown to everyone who opens its view (``backend.job_in``), until it finishes or
someone tries again; ``backend.retry`` forgets a failure, and the caller asks for the job again in
the same step. A job's result is written one way: its arrays, then one record vouching for them
with their checksums (``records``); a result whose record is missing or does not match is not
done, and a damaged one is removed and computed again.

One small interface, used by maps/ and spaces/, which own what their jobs compute:

- ``backend.start(folder, finished, inputs, worker, what)``: the finished result, or the job
  making it (joined, queued, failed, or started now), run where the host chose: ``local``, a
  process this server starts, or ``queue``, RQ workers; ``backend.job_in(folder)``: the job
  known of, failures included; ``backend.retry(folder)``: forget a failure;
- ``progress.read`` and ``progress.time_left``: how far a job has come and the time it has left
  (``forecast`` for a t-SNE map's stages; ``pace``, this server's pace on its last map);
- ``worker.run`` and ``worker.reporter``: a worker process's life and its progress reports;
- ``records``: a job's result written (``write``, ``save_array``) and read back checked
  (``read``, ``load_array``);
- ``files``: atomic writes, a job folder's own files, leftovers swept;
- ``priority``: background work's CPU priority.
"""
