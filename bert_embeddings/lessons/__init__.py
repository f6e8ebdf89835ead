"""Lessons: a guided path through the explorer, one view at a time, for one learner or a room.

``lesson`` reads and writes a lesson file (TOML) and checks every step's view as a link is
checked; ``text`` says what a step's text may hold and reads it; ``builtin`` holds the lessons
that ship with the app. The Streamlit side plays them (components/lessons); the handout is a
figure file (bert_embeddings.lessons.handout).
"""
