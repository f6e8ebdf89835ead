"""What a view of the explorer is: a page and its settings, as a link, a workshop room and a
lesson step all carry it. The pages (``pages``: file, title, icon, address, old addresses), the
one table of settings (``settings``: key, default, link name, reader, page) and the readers of a
link's text (``link_text``); ``check`` reads a view given as link parameters and says, for each
part, what it cannot use. No Streamlit: the app's glue, the host's command and the tests share it.
"""
