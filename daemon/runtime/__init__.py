"""The runtime: how memubot lives on the bus.

The embedded broker (`nats_server`, `broker`, `supervisor`), the one client connection
(`connection`, `shared_broker`, `probe`), the JetStream streams (`streams`), the consumer of
`memubot.in.>` and its dispatcher (`consumer`, `dispatch`), request/reply (`rpc`), the memory-op
outbox pump (`ops_outbox`), replay of recorded scenarios (`replay`), systemd notification
(`notify`) and metrics (`metrics`). `daemon/app.py` wires them in one exit stack.
"""
