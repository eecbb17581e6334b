import PokeSyncCore

print("pokesync: not built yet")
