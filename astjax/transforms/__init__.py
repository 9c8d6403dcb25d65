"""The transformations: reverse mode (vjp) and forward mode (jvp), each emitting normalized source."""
