# specdraft compare, following Streamlit's Docker guidance: non-root, listens on 0.0.0.0:8501,
# health check on /_stcore/health, Hub cache and results database on a volume.
FROM python:3.11-slim

ARG TORCH_INDEX=https://download.pytorch.org/whl/cpu
ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    HF_HOME=/data/hf \
    SPECDRAFT_HOME=/data/specdraft \
    SPECDRAFT_DATA_ROOT=/data/files \
    HF_HUB_DISABLE_TELEMETRY=1 \
    HF_UPDATE_DOWNLOAD_COUNTS=false \
    STREAMLIT_BROWSER_GATHER_USAGE_STATS=false \
    STREAMLIT_CLIENT_SHOW_ERROR_DETAILS=none \
    STREAMLIT_BROWSER_SERVER_ADDRESS=localhost
# A shared dashboard: live benchmarks only against servers in the container's own loopback (an
# inference server started next to the app in the same container or pod), and bounded per run and
# per browser session. Set SPECDRAFT_BENCH_ALLOW to e.g. "10.0.0.0/8:30000,gpu-box.internal" to allow
# more (README, Shared deployment); set the caps to taste.
ENV SPECDRAFT_BENCH_ALLOW=loopback \
    SPECDRAFT_BENCH_MAX_CONCURRENCY=64 \
    SPECDRAFT_BENCH_MAX_REQUESTS=2000 \
    SPECDRAFT_BENCH_MAX_SECONDS=1800 \
    SPECDRAFT_BENCH_SESSION_REQUESTS=10000 \
    SPECDRAFT_BENCH_SESSION_SECONDS=7200 \
    SPECDRAFT_BENCH_MAX_RUNS=4

RUN apt-get update && apt-get install -y --no-install-recommends curl \
    && rm -rf /var/lib/apt/lists/*

WORKDIR /app
COPY requirements.txt .
# The CPU build of torch first, so the pinned requirement does not pull a CUDA build.
RUN pip install --index-url "$TORCH_INDEX" torch==2.13.0 && pip install -r requirements.txt

COPY app.py uploadgate.py ./
COPY assets ./assets
COPY pages ./pages
COPY comparelib ./comparelib
COPY .streamlit ./.streamlit

RUN useradd --create-home --uid 1000 app && mkdir -p /data/files && chown -R app /data
USER app
VOLUME ["/data"]
EXPOSE 8501
HEALTHCHECK --interval=30s --timeout=5s --start-period=20s CMD curl --fail http://localhost:8501/_stcore/health || exit 1
ENTRYPOINT ["streamlit", "run", "app.py", "--server.port=8501", "--server.address=0.0.0.0", "--server.headless=true"]
