"""What one page draws around its figures: the Maps page's reading aids (map_view), the geometry
switch and the Geometry page's tables (geometry_view), the axes' report cards and WEAT
(card_view), and What moved's parts (space_view, aligned_view, layers_view)."""
