"""Client options for talking to a Milvus Lite server on this machine (no imports of ours)."""

LITE_GRPC_OPTIONS = {
    "grpc.keepalive_time_ms": 2**31 - 1,
    "grpc.keepalive_permit_without_calls": False,
    "grpc.use_local_subchannel_pool": 1,
}
"""No keepalive pings to the local Milvus Lite server. pymilvus pings every 10 s even when
idle; a gRPC server refuses pings more often than every 5 minutes without calls
(grpc.http2.min_ping_interval_without_data_ms) and answers with GOAWAY too_many_pings, which
gRPC prints on stderr during any pause (a chat turn, a long test). A local socket needs no
keepalive; remote servers keep pymilvus's defaults.

Each channel keeps its own subchannels (`grpc.use_local_subchannel_pool`, gRPC's channel
argument GRPC_ARG_USE_LOCAL_SUBCHANNEL_POOL). gRPC shares subchannels by address across a
process: a server stopped here, then another that gets the same loopback port, left a new
client on the old connection's failure ("Fail connecting to server" at once) or its reconnect
backoff (a deadline passed while waiting), though the new server was up."""
