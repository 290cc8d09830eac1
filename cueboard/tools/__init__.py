"""Commands for people at a laptop or an installer: the demo, the keypad simulator, the hardware test,
board pictures.
"""
