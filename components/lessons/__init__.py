"""Lessons in the page: the lesson bar that plays a lesson over every page (player), opening one
from the first page, a link or a file (opening), and making one from the views a person explores
(maker). The lessons themselves are the core's (bert_embeddings.lessons)."""
