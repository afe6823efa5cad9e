"""Capacity, failure impact and the dual-plane performance model (`dualrail capacity`).

Reads the resolved fabric only (one-way data flow: resolve -> capacity). `figures` sums the
cabling plan per plane and tier, `reach` computes ECMP width with devices failed, `failures` the
impact of what-if scenarios, `model` the dual-plane performance and availability formulas,
`report` the JSON and the self-contained HTML report.
"""
