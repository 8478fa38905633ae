"""The murder mystery's image clues drawn by code: each script folder's `images.json` lists
its drawings (`drawings.py`), the drawers make each one (`draw_paper.py`, `draw_scene.py` on
`canvas.py` and `fonts.py`) and `images.py` writes the PNGs or checks the shipped ones."""
