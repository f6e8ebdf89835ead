"""Workshop rooms in the page: the Streamlit side of bert_embeddings.rooms.

asking        a lesson's question in a room: answers, the live tally, the reveal
follow        followers: a room's view applied to the page, and publishing the leader's
lead          leaders: opening, closing, the beat, taking a room back
room_section  the sidebar's workshop section
room_wake     the server reruns its followers itself on a new view
room_watch    the browser component: push stream, checks, the leader's cookie
room_stream   the push route (Server-Sent Events) beside the pages
roomstore     the process's one store
voter         this browser's id in a room: one answer per browser; who follows now
"""
