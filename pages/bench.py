"""Placeholder until this page lands."""

import streamlit as st

st.title("bench")
st.info("This page is being built.")
