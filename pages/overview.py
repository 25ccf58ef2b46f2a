"""Placeholder until this page lands."""

import streamlit as st

st.title("overview")
st.info("This page is being built.")
