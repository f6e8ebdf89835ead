# The explorer as one container: one Streamlit replica. compose.yaml runs two of them behind
# HAProxy (deploy/haproxy.cfg), sharing their workshop rooms through Redis.
FROM python:3.11-slim

# Model downloads, and the t-SNE maps kept beside them (HF_HOME/bert-explorer), go to a
# volume (compose.yaml), so a restarted container does not fetch and compute them again.
ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    HF_HOME=/data/hf

WORKDIR /app

# Dependencies first: this layer stays cached while only the app's code changes.
COPY requirements.txt .
RUN pip install --no-cache-dir -r requirements.txt

# No root inside the container. The cache folder belongs to that user, and a new named
# volume mounted on it starts with the same owner.
RUN useradd --create-home --uid 10001 explorer \
    && mkdir -p /data/hf \
    && chown explorer:explorer /data/hf
COPY . .
USER explorer

EXPOSE 8501
# Streamlit's own health route, the one HAProxy checks too.
HEALTHCHECK --interval=10s --timeout=5s --start-period=60s --retries=3 \
    CMD ["python", "-c", "import urllib.request as u; u.urlopen('http://127.0.0.1:8501/_stcore/health', timeout=4)"]

CMD ["streamlit", "run", "app.py", "--server.address=0.0.0.0", "--server.port=8501", "--server.headless=true", "--browser.gatherUsageStats=false"]
