import PlayerHost
