"""What each page over the whole vocabulary shows of a view (Maps, Your own axes),
composed once, for the page and for a lesson's handout: a function of the view's values and the
model's ``Sources`` that returns the page's parts by name, in the page's order (handout_parts).
Each page's composer is in a module of its own (maps_page, axes_page); a page
passes what only it has as keywords (the Maps page its theme's text colour, the latest search and
a click's marks).

A part a background job computes (a t-SNE map, a stage's neighbour lists) is read where the job
left it and never started or waited for here: while it is not there the composition holds a note
saying so, which the page leaves out (its job panel says it) and the handout writes.
"""

from __future__ import annotations

from bert_embeddings.figures import maps_page

COMPOSERS = {
    "maps": maps_page.maps_page,
}
