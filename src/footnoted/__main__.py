from footnoted.cli import app

app(prog_name="footnoted")
