"""``LoggingTensor`` / ``capture_logs`` (logging_tensor.py) and ``TwoTensor`` (two_tensor.py), as torch's tests use
them (torch/testing/_internal/)."""
