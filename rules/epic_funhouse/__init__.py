"""Epic Funhouse (Ron and Marty Hale-Evans, 2004): six solitaire rooms played in order, each room's end
setting up the next. One module per room (``slide_jam``, ``magic_mirror``, ``catwalk``,
``roll_out_the_barrels``, ``whack_a_dummy``, ``trampo_land``); ``common`` holds the few helpers they share.
"""
