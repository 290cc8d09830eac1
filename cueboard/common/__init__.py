"""What every area uses and nothing of the game: errors, typed settings, languages, packaged files, secret files."""
