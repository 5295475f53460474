package main

// testAdminToken is the admin API token the tests configure.
const testAdminToken = "t0ken"
