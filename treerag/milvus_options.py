"""Client options for talking to a Milvus Lite server on this machine (no imports of ours)."""

LITE_GRPC_OPTIONS = {
    "grpc.keepalive_time_ms": 2**31 - 1,
    "grpc.keepalive_permit_without_calls": False,
}
"""No keepalive pings to the local Milvus Lite server. pymilvus pings every 10 s even when
idle; a gRPC server refuses pings more often than every 5 minutes without calls
(grpc.http2.min_ping_interval_without_data_ms) and answers with GOAWAY too_many_pings, which
gRPC prints on stderr during any pause (a chat turn, a long test). A local socket needs no
keepalive; remote servers keep pymilvus's defaults."""
