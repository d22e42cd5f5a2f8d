# The judge for docker-compose.yml: `gm db upgrade`, then `gm serve`, as an unprivileged user.
FROM python:3.11-slim-bookworm

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    GM_DATA_DIR=/data

RUN useradd --system --uid 10001 --user-group --home-dir /app --no-create-home gm \
    && mkdir /data && chown gm:gm /data

WORKDIR /app
COPY pyproject.toml README.md alembic.ini ./
COPY gm ./gm
COPY migrations ./migrations
COPY templates ./templates
COPY maps ./maps
# Installed in place (-e): gm reads its migrations, templates and maps beside the package, in
# /app, which a plain install into site-packages would leave behind. Its modules are compiled here
# once: PYTHONDONTWRITEBYTECODE keeps each gm command (and each healthcheck) from writing them, not
# from reading them, and compiling them at every start takes seconds on a busy machine.
RUN pip install -e . && python -m compileall -q gm && gm --help >/dev/null

USER gm
# Only the SQLite database and embedded mail live here; with PostgreSQL and a real mail server
# (docker-compose.yml) it stays nearly empty.
VOLUME /data
# gm serve brings the database up to date itself too; `gm db upgrade` first says so in the log.
CMD ["sh", "-c", "gm db upgrade && exec gm serve"]
