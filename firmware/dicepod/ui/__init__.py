"""Screens: state + draw(canvas) + on_button. Pure: no machine, time or random imports; a canvas
is anything with the framebuf.FrameBuffer drawing methods (128×64, colour 1 = lit)."""
