print("npctl")
