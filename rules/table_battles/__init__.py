"""Dinosaur Table Battles (Hollandspiele 2020): rules, card data and the compiled engine."""
