# One rebelote server process (the `rebelote[server]` wheel: PostgreSQL driver and Redis).
# deploy/compose.yaml runs several behind HAProxy, with PostgreSQL and Redis.
FROM python:3.11-slim AS build
WORKDIR /src
COPY pyproject.toml README.md LICENSE ./
COPY src ./src
RUN pip wheel --no-cache-dir --no-deps -w /dist .

FROM python:3.11-slim
RUN useradd --create-home --uid 10001 rebelote
COPY --from=build /dist/ /tmp/dist/
RUN pip install --no-cache-dir "$(ls /tmp/dist/rebelote-*.whl)[server]" && rm -rf /tmp/dist
USER rebelote
WORKDIR /home/rebelote
# Inside the container network; compose publishes only the balancer, on 127.0.0.1.
ENV REBELOTE_HOST=0.0.0.0 \
    REBELOTE_PORT=8000 \
    REBELOTE_LOG_FORMAT=json \
    REBELOTE_DATA_DIR=/home/rebelote/data \
    NUMBA_CACHE_DIR=/home/rebelote/.cache/numba \
    PYTHONUNBUFFERED=1
EXPOSE 8000
HEALTHCHECK --interval=5s --timeout=3s --start-period=60s \
    CMD python -c "import urllib.request; urllib.request.urlopen('http://127.0.0.1:8000/healthz', timeout=2)"
CMD ["rebelote", "serve"]
