print("playerhostd")
