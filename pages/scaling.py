"""Placeholder until this page lands."""

import streamlit as st

st.title("scaling")
st.info("This page is being built.")
