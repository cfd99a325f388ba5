"""The seed's tool system: tools, results, context, file-state cache, registry, orchestration.

Nothing here imports widgets, magics or notebook frontends.
"""
