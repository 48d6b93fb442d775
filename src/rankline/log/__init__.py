"""The ingestion log: a partitioned, durable log of submissions, on SQL, NATS JetStream or
Kafka. ``base`` is the contract; ``open_log`` picks the engine from ``RANKLINE_LOG_URL``."""

from rankline.log.base import IngestLog, LogConsumer, LogOptions, LogRecord, partition_of
from rankline.log.factory import open_log, options_from

__all__ = [
    "IngestLog",
    "LogConsumer",
    "LogOptions",
    "LogRecord",
    "open_log",
    "options_from",
    "partition_of",
]
