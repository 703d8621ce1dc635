"""kgraph"""
