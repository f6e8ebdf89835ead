"""The small parts every page uses: a chart drawn with the theme and presenter mode, and a page's
composed parts (draw), problems and notices as messages (messages),
downloads under every figure and table (exports), echoed text (echo), keyed widgets and pattern
boxes (widgets), a cookie the browser keeps (cookie), search filters (filters), the model
pickers (models), and the one panel for every background job (job_panel)."""
