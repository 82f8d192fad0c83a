// Every reference op: include this for the op functions without the chain.
#pragma once

#include "hipfuse/reference/activation.h"
#include "hipfuse/reference/batchnorm.h"
#include "hipfuse/reference/conv.h"
#include "hipfuse/reference/elementwise.h"
