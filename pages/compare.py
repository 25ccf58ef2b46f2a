"""Placeholder until this page lands."""

import streamlit as st

st.title("compare")
st.info("This page is being built.")
