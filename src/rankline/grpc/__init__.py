"""The gRPC API: rankline.v1 (proto/rankline/v1/rankline.proto), served beside HTTP in the same
process and event loop when ``RANKLINE_GRPC_PORT`` is set, each RPC answered by the HTTP
endpoint it twins (the same request wrapper, handler and service call)."""
