"""Pure game rules: no hardware, time or random imports; randomness arrives as randbelow(n)."""
