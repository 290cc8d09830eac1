"""The table's MQTT connections: the feed, its configuration, and the paced links for the lines people send."""
