"""Timing helpers shared by measure.py and steps.py: CUDA events around repeated launches."""

import torch


def cuda_time_ms(fn, warmup=3, iters=10):
    """Mean milliseconds of fn over iters launches after warmup ones, timed by CUDA events."""
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    for _ in range(iters):
        fn()
    end.record()
    torch.cuda.synchronize()
    return start.elapsed_time(end) / iters


def graph_time_ms(step, iters=20):
    """Mean milliseconds of one replay of step() captured in a CUDA graph: the GPU's work without
    the host's launch overhead. step is run twice on a side stream first, as capture requires."""
    with torch.no_grad():
        stream = torch.cuda.Stream()
        stream.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(stream):
            for _ in range(2):
                step()
        torch.cuda.current_stream().wait_stream(stream)
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            step()
        ms = cuda_time_ms(graph.replay, warmup=3, iters=iters)
    del graph
    return ms
