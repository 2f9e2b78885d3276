"""The screens of the app: connect, agent chooser, chat and help."""
