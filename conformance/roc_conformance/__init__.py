"""RoC conformance suite: checks any implementation of Return of Control over gRPC."""

SPEC_VERSION = "1.3"
