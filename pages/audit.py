"""Placeholder until this page lands."""

import streamlit as st

st.title("audit")
st.info("This page is being built.")
